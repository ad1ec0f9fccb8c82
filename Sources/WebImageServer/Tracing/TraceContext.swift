import Foundation
import WebImage

/// Where a span belongs: its trace's 16-byte identifier, its own 8-byte one, and whether its trace is recorded.
/// Read from and written as a W3C Trace Context `traceparent` header (`00-TRACEID-SPANID-FLAGS`).
struct TraceContext: Sendable, Equatable {
    /// The trace identifier's two halves, big-endian (`high` is its first 8 bytes).
    var traceHigh: UInt64
    var traceLow: UInt64
    var spanID: UInt64
    /// The `sampled` flag: whether the caller records this trace.
    var sampled: Bool

    /// The context a `traceparent` header value carries; `nil` for a value the W3C format does not accept (the
    /// request is then traced as if it had none, as the format asks).
    init?(traceparent: String) {
        let utf8 = Array(traceparent.utf8)
        // version 2, trace 32, span 16, flags 2, and three dashes. Later versions may append fields after a dash.
        guard utf8.count >= 55, utf8[2] == UInt8(ascii: "-"), utf8[35] == UInt8(ascii: "-"),
              utf8[52] == UInt8(ascii: "-"), utf8.count == 55 || utf8[55] == UInt8(ascii: "-"),
              let version = Self.hex(utf8[0..<2]), version != 0xff, version != 0 || utf8.count == 55,
              let high = Self.hex(utf8[3..<19]), let low = Self.hex(utf8[19..<35]),
              let span = Self.hex(utf8[36..<52]), let flags = Self.hex(utf8[53..<55]),
              high != 0 || low != 0, span != 0
        else { return nil }
        self.init(traceHigh: high, traceLow: low, spanID: span, sampled: flags & 1 == 1)
    }

    init(traceHigh: UInt64, traceLow: UInt64, spanID: UInt64, sampled: Bool) {
        self.traceHigh = traceHigh
        self.traceLow = traceLow
        self.spanID = spanID
        self.sampled = sampled
    }

    /// The header value for this context (version 00).
    var traceparent: String {
        "00-" + Self.hex(traceHigh) + Self.hex(traceLow) + "-" + Self.hex(spanID) + (sampled ? "-01" : "-00")
    }

    /// A new trace's identifier and first span, made as `style` says.
    static func newTrace(_ style: ProxyTracing.TraceIDs, sampled: Bool) -> TraceContext {
        var high = TraceIDGenerator.shared.next()
        if style == .xray {
            // X-Ray reads the first 4 bytes as the trace's start, in Unix seconds.
            let seconds = UInt64(UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970)))
            high = seconds << 32 | (high & 0xffff_ffff)
        }
        return TraceContext(traceHigh: high, traceLow: TraceIDGenerator.shared.next(), spanID: newSpanID(),
                            sampled: sampled)
    }

    /// A span identifier for another span of the same trace (never 0, which the format reserves).
    static func newSpanID() -> UInt64 {
        while true {
            let id = TraceIDGenerator.shared.next()
            if id != 0 { return id }
        }
    }

    /// Lowercase hexadecimal digits only (the format refuses uppercase ones).
    private static func hex(_ digits: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Random 64-bit words for identifiers: xoshiro256** seeded from the system's generator. The system's generator
/// is a system call per word, which a traced memory hit (three words) would pay on every request; identifiers
/// need to be unpredictable enough not to collide, not secret.
private final class TraceIDGenerator: Sendable {
    static let shared = TraceIDGenerator()
    private let state: Locked<(UInt64, UInt64, UInt64, UInt64)>

    private init() {
        var system = SystemRandomNumberGenerator()
        state = Locked((system.next(), system.next(), system.next(), system.next() | 1))  // never all zero
    }

    func next() -> UInt64 {
        state.withLock { s in
            let result = rotate(s.1 &* 5, 7) &* 9
            let shifted = s.1 << 17
            s.2 ^= s.0
            s.3 ^= s.1
            s.1 ^= s.2
            s.0 ^= s.3
            s.2 ^= shifted
            s.3 = rotate(s.3, 45)
            return result
        }
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { value << count | value >> (64 - count) }
}
