import Foundation

/// A span that has ended, as it is exported: where it belongs, what it was, when, and how it ended.
struct TraceSpan: Sendable {
    /// What a span was, as OTLP says: the request (a server span) or a step of it (internal).
    enum Kind: UInt64, Sendable {
        case internalStep = 1
        case server = 2
    }

    /// An attribute's value: OTLP's scalar kinds.
    enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case bool(Bool)
        case double(Double)
    }

    var context: TraceContext
    /// The span this one is a child of; 0 for a trace's first span.
    var parentSpanID: UInt64
    var name: String
    var kind: Kind
    /// Nanoseconds since 1970, as OTLP counts them.
    var start: UInt64
    var end: UInt64
    var attributes: [(key: String, value: Value)] = []
    /// Whether the span ended in error (OTLP's status code 2), and why; otherwise its status is unset.
    var errorMessage: String?

    /// The wall clock now, in nanoseconds since 1970.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
