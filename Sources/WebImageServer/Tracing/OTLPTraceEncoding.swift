/// The body of an OTLP/HTTP traces export: an `ExportTraceServiceRequest` in protobuf's binary form, written
/// directly (the messages are few and fixed; a protobuf library and its generated code would cost every build more
/// than this file). Field numbers are those of opentelemetry-proto's `trace/v1/trace.proto`,
/// `resource/v1/resource.proto`, `common/v1/common.proto` and `collector/trace/v1/trace_service.proto`.
enum OTLPTraceEncoding {
    /// `spans` in one `ResourceSpans` (the resource's attributes) with one `ScopeSpans` (the instrumentation scope
    /// `scope`, at `version`).
    static func request(_ spans: [TraceSpan], resource: [(key: String, value: TraceSpan.Value)], scope: String,
                        version: String) -> [UInt8] {
        var resourceMessage = ProtobufWriter()
        for attribute in resource {
            resourceMessage.message(1, keyValue(attribute.key, attribute.value))  // attributes
        }
        var scopeMessage = ProtobufWriter()
        scopeMessage.string(1, scope)  // name
        scopeMessage.string(2, version)  // version
        var scopeSpans = ProtobufWriter()
        scopeSpans.message(1, scopeMessage)  // scope
        for span in spans { scopeSpans.message(2, encode(span)) }  // spans
        var resourceSpans = ProtobufWriter()
        resourceSpans.message(1, resourceMessage)  // resource
        resourceSpans.message(2, scopeSpans)  // scope_spans
        var request = ProtobufWriter()
        request.message(1, resourceSpans)  // resource_spans
        return request.bytes
    }

    private static func encode(_ span: TraceSpan) -> ProtobufWriter {
        var message = ProtobufWriter()
        message.bytes(1, bigEndian: [span.context.traceHigh, span.context.traceLow])  // trace_id
        message.bytes(2, bigEndian: [span.context.spanID])  // span_id
        if span.parentSpanID != 0 { message.bytes(4, bigEndian: [span.parentSpanID]) }  // parent_span_id
        message.string(5, span.name)  // name
        message.varint(6, span.kind.rawValue)  // kind
        message.fixed64(7, span.start)  // start_time_unix_nano
        message.fixed64(8, span.end)  // end_time_unix_nano
        for attribute in span.attributes { message.message(9, keyValue(attribute.key, attribute.value)) }
        if let error = span.errorMessage {
            var status = ProtobufWriter()
            status.string(2, error)  // message
            status.varint(3, 2)  // code: STATUS_CODE_ERROR
            message.message(15, status)  // status
        }
        return message
    }

    /// A `KeyValue` with its `AnyValue`.
    private static func keyValue(_ key: String, _ value: TraceSpan.Value) -> ProtobufWriter {
        var any = ProtobufWriter()
        switch value {
        case .string(let text): any.string(1, text, evenIfEmpty: true)
        case .bool(let flag): any.varint(2, flag ? 1 : 0, evenIfZero: true)
        case .int(let number): any.varint(3, UInt64(bitPattern: number), evenIfZero: true)
        case .double(let number): any.fixed64(4, number.bitPattern, evenIfZero: true)
        }
        var pair = ProtobufWriter()
        pair.string(1, key)  // key
        pair.message(2, any)  // value
        return pair
    }
}

/// Protobuf's binary wire format, the few field kinds OTLP's trace messages use. Fields at their default value are
/// left out, as protobuf's own writers do, unless a `oneof` member must say which one it is.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    private enum WireType: UInt64 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2
    }

    mutating func varint(_ field: UInt64, _ value: UInt64, evenIfZero: Bool = false) {
        guard value != 0 || evenIfZero else { return }
        tag(field, .varint)
        appendVarint(value)
    }

    mutating func fixed64(_ field: UInt64, _ value: UInt64, evenIfZero: Bool = false) {
        guard value != 0 || evenIfZero else { return }
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func string(_ field: UInt64, _ text: String, evenIfEmpty: Bool = false) {
        guard !text.isEmpty || evenIfEmpty else { return }
        tag(field, .lengthDelimited)
        appendVarint(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    /// `words` as bytes, each most significant byte first (trace and span identifiers).
    mutating func bytes(_ field: UInt64, bigEndian words: [UInt64]) {
        tag(field, .lengthDelimited)
        appendVarint(UInt64(words.count * 8))
        for word in words {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
    }

    mutating func message(_ field: UInt64, _ message: ProtobufWriter) {
        tag(field, .lengthDelimited)
        appendVarint(UInt64(message.bytes.count))
        bytes.append(contentsOf: message.bytes)
    }

    private mutating func tag(_ field: UInt64, _ type: WireType) {
        appendVarint(field << 3 | type.rawValue)
    }

    private mutating func appendVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
