#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the same shape as `Synchronization.Mutex` (`withLock`). The one lock
/// type of this package (`package`, so the proxy, the Redis tier and the tests use it too).
///
/// Why not `Mutex`: on Linux it waits with raw `futex` calls, which ThreadSanitizer does not intercept, so
/// every access made under it is reported as a race (a two-thread counter under `Mutex` gives four warnings
/// and exit status 66 with Swift 6.3.1). CI runs the tests under ThreadSanitizer, and pthread mutexes are
/// understood by it. Uncontended, a lock and unlock cost about the same. NIO's `NIOLockedValueBox` is a pthread
/// mutex too and would do as well; one type is used everywhere so that there is one rule to read. (The loopback
/// test server keeps its own `ServerLock`: it does not link the library whose tests it serves.)
@usableFromInline
package final class Locked<Value> {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Exclusive access is what the mutex guarantees; the runtime check would only cost time.
    @usableFromInline @exclusivity(unchecked) var value: Value

    @usableFromInline
    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// C boundary: the pthread_mutex_t makes every access to `value` exclusive, so sharing is safe when the value
// itself may cross tasks.
extension Locked: @unchecked Sendable where Value: Sendable {}
