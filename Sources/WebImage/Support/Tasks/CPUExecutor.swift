import Dispatch

/// Where CPU-bound work runs (decoding, transforming, rendering, encoding): a bounded number of jobs at once, on
/// threads of their own. Jobs beyond the number of cores only add memory (every running decode holds its
/// pixels) without finishing sooner, and a job that blocks a cooperative thread of Swift's shared pool for tens
/// of milliseconds delays every task that waits for that thread (network callbacks, cache hits, timers): so the
/// work runs on dispatch threads, and the slots in front of them decide how many run and in which order.
@_spi(ServerSupport) public final class CPUExecutor: Sendable {
    /// The slots jobs wait for (their gauges: `running`, `waiting`).
    public let slots: PrioritySlots
    private let threads: DispatchQueue

    /// An executor running at most `width` jobs at once; past that at most `queueLimit` wait (then
    /// ``SlotQueueFull`` is thrown).
    public init(width: Int, queueLimit: Int = .max, label: String = "webimage.cpu") {
        slots = PrioritySlots(width: width, queueLimit: queueLimit)
        threads = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
    }

    /// `body`'s result, computed on an executor thread once a slot is free, at `priority`. A task cancelled
    /// while it waits throws ``ImageError/Code/cancelled`` and never runs `body`.
    public func run<T: Sendable>(priority: ImagePriority = .normal,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await slots.run(priority: priority) { try await onThread(body) }
    }

    /// `body`'s result, computed on an executor thread once a slot is free for `work`, whose priority it follows
    /// while it waits.
    public func run<Value: Sendable, Update: Sendable, T: Sendable>(
        for work: SharedTask<Value, Update>, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await slots.run(for: work) { try await onThread(body) }
    }

    private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            threads.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
