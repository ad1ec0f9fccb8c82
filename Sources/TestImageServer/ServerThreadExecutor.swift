#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the server's tasks on threads of its own rather than Swift's shared cooperative pool.
///
/// Why: test suites block cooperative threads on purpose (synchronous tests waiting for a child process). With
/// two cores the pool has two threads, and a server whose request handling waits for a free pool thread stops
/// answering while both are blocked — and a `webimage fetch` child process talking to it times out. Threads of
/// its own keep the server answering whatever the tests do.
final class ServerThreadExecutor: TaskExecutor, @unchecked Sendable {
    // C boundary: `jobs` is only touched with `mutex` held; the threads wait on `condition`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []

    /// Starts `threads` threads that live as long as the process (one executor serves every test server).
    init(threads: Int) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<max(1, threads) {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            pthread_create(&thread, nil, { context in
                guard let context else { return nil }
                Unmanaged<ServerThreadExecutor>.fromOpaque(context).takeRetainedValue().runLoop()
                return nil
            }, context)
            pthread_detach(thread)
        }
    }

    /// The executor every test server in the process shares.
    static let shared = ServerThreadExecutor(threads: 2)

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(unowned)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private func runLoop() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty { pthread_cond_wait(condition, mutex) }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
