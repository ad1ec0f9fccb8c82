#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, for state that many threads contend for.
///
/// Why not `Synchronization.Mutex`: on Linux a contended `Mutex` is handed over inside the kernel (a
/// priority-inheritance futex), which ThreadSanitizer cannot observe, so it reports every contended access as a
/// race although there is none. Checked here with Swift 6.3.1: eight threads updating a dictionary under `Mutex`
/// give "Swift access race" reports; under a pthread mutex (whose calls ThreadSanitizer intercepts) none. The
/// project's tests run under ThreadSanitizer, so the animation types, which are contended by design (a player,
/// prefetch tasks and readers on one image), lock with this.
final class LockedValue<Value: Sendable>: @unchecked Sendable {  // C boundary: a pthread mutex guards `value`
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. Not reentrant: `body` must not lock this value again.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
