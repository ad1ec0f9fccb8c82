#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, shaped like `Synchronization.Mutex` (`withLock`).
///
/// Why not `Mutex`: on Linux it waits with raw futex calls that ThreadSanitizer does not see, so the server's
/// state, touched from its own threads and the tests', reads as a data race under `--sanitize=thread`.
final class ServerLock<Value>: @unchecked Sendable {
    // C boundary: every access to `value` happens with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
