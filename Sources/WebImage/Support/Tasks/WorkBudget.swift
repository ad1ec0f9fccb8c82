#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// What one piece of CPU work (a server's render of one result) may spend: CPU time on the threads that run it,
/// and until when anyone still wants it. The work's long loops (resampling, blurring, filtering, decoders' row
/// loops) call ``checkpoint()``, which finds the budget installed on the calling thread by ``run(_:)`` and throws
/// once it is spent or cancelled: a source that costs far more than its bytes suggest (a flood of JPEG scans, a
/// filter chain over 50 megapixels of 16-bit samples) stops within a few rows of its limit, and a render nobody
/// waits for stops within a few rows of being abandoned. Without a budget installed, checkpoints cost one
/// thread-local read and never throw.
package final class WorkBudget: Sendable {
    /// Why a budget stopped its work.
    package enum Reason: Int, Sendable {
        /// More CPU time than ``cpuLimit`` was spent.
        case cpu = 1
        /// ``cancel()`` was called: nobody waits for the work any more.
        case cancelled = 2
    }

    /// The CPU time the work may spend, over every thread and every ``run(_:)``.
    package let cpuLimit: Duration
    private let spentNanoseconds = Atomic<Int64>(0)
    private let stopReason = Atomic<Int>(0)
    private let interrupted = Atomic<Bool>(false)

    /// A budget of `cpuLimit` of CPU time.
    package init(cpuLimit: Duration) {
        self.cpuLimit = cpuLimit
    }

    /// How many times slower than a release build this build runs pixel loops, roughly: 10 for a debug build,
    /// 10 more under a sanitizer. Defaults calibrated on release builds are multiplied by it, so that a debug or
    /// sanitized build (the test suites) refuses what a release build would, not every large render.
    package static let buildSlowdown: Int = {
        var factor = 1
        #if DEBUG
        factor *= 10
        #endif
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        if dlsym(everywhere, "__asan_init") != nil || dlsym(everywhere, "__tsan_init") != nil { factor *= 10 }
        return factor
    }()

    /// Why the work was stopped, `nil` while it may go on.
    package var reason: Reason? { Reason(rawValue: stopReason.load(ordering: .relaxed)) }

    /// Whether a checkpoint stopped work in progress (a budget cancelled before its work ran stopped none).
    package var stoppedWork: Bool { interrupted.load(ordering: .relaxed) }

    /// CPU time spent so far by finished ``run(_:)`` calls.
    package var spent: Duration { .nanoseconds(spentNanoseconds.load(ordering: .relaxed)) }

    /// Stops the work at its next checkpoint (from any thread).
    package func cancel() { stop(.cancelled) }

    /// Runs `body` on this thread with the budget installed, so that its checkpoints count this thread's CPU time
    /// against it. Nested calls keep the outer budget.
    package func run<T>(_ body: () throws -> T) throws -> T {
        if Self.installed != nil { return try body() }
        let installation = Installation(budget: self, startedAt: Self.threadCPUNanoseconds())
        Self.installed = installation
        defer {
            Self.installed = nil
            spentNanoseconds.add(Self.threadCPUNanoseconds() - installation.startedAt, ordering: .relaxed)
        }
        try Self.checkpoint()
        return try body()
    }

    /// Throws ``Exceeded`` when the budget installed on this thread is spent or cancelled; returns at once when
    /// none is installed. The thread's CPU clock is read on every 8th call: checkpoints sit in row loops, where a
    /// clock read per row would cost a few percent.
    package static func checkpoint() throws(Exceeded) {
        guard let installation = installed else { return }
        if let reason = installation.budget.reason {
            installation.budget.interrupted.store(true, ordering: .relaxed)
            throw Exceeded(reason: reason)
        }
        installation.calls &+= 1
        guard installation.calls & 7 == 0 else { return }
        let spent = installation.budget.spentNanoseconds.load(ordering: .relaxed)
            + threadCPUNanoseconds() - installation.startedAt
        if spent > installation.limitNanoseconds {
            installation.budget.stop(.cpu)
            installation.budget.interrupted.store(true, ordering: .relaxed)
            throw Exceeded(reason: .cpu)
        }
    }

    /// ``checkpoint()`` for loops that cannot throw: `true` when they should leave early, and let their caller's
    /// next ``checkpoint()`` throw (the budget stays stopped).
    package static func shouldStop() -> Bool {
        do {
            try checkpoint()
            return false
        } catch {
            return true
        }
    }

    /// The error a checkpoint throws: the work is over its budget or abandoned.
    package struct Exceeded: Error, Sendable, CustomStringConvertible {
        package let reason: Reason
        package var description: String {
            reason == .cpu ? "the work used up its CPU time" : "the work was cancelled: nobody waits for it"
        }
    }

    private func stop(_ reason: Reason) {
        _ = stopReason.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed)
    }

    // MARK: The calling thread's budget

    /// A budget installed on one thread. Touched only by that thread (the budget it names is shared).
    private final class Installation {
        let budget: WorkBudget
        let startedAt: Int64
        let limitNanoseconds: Int64
        var calls = 0

        init(budget: WorkBudget, startedAt: Int64) {
            self.budget = budget
            self.startedAt = startedAt
            let (seconds, attoseconds) = budget.cpuLimit.components
            limitNanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // Installations are removed by `run` before it returns; nothing is left to destroy when a thread ends.
        pthread_key_create(&key, nil)
        return key
    }()

    private static var installed: Installation? {
        get { pthread_getspecific(key).map { Unmanaged<Installation>.fromOpaque($0).takeUnretainedValue() } }
        set {
            if let old = pthread_getspecific(key) { Unmanaged<Installation>.fromOpaque(old).release() }
            pthread_setspecific(key, newValue.map { Unmanaged.passRetained($0).toOpaque() })
        }
    }

    private static func threadCPUNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
