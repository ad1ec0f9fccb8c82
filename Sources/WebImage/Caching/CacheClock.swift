#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the caches read the time: wall-clock seconds since 1970 (disk entries outlive the process, so a
/// monotonic clock would not do). Tests inject a clock they move by hand so ages are deterministic; users have no
/// reason to, so it is internal (usable from the memory cache's inlinable hot path).
@usableFromInline
struct CacheClock: Sendable {
    @usableFromInline let read: @Sendable () -> Double

    /// A clock that answers `now()` with whatever `read` returns (seconds since 1970).
    init(_ read: @escaping @Sendable () -> Double) {
        self.read = read
    }

    /// The system's real-time clock.
    static let system = CacheClock {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The current time in seconds since 1970.
    @inlinable func now() -> Double { read() }
}
