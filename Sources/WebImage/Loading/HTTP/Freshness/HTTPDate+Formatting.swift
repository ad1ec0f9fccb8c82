#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) of the instant `seconds` after 1970, fractions dropped.
    package static func string(secondsSince1970 seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(two(parts.tm_mday)) \(monthNames[Int(parts.tm_mon)]) \(parts.tm_year + 1900)"
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return "\(dayNames[Int(parts.tm_wday)]), \(date) \(clock) GMT"
    }
}
