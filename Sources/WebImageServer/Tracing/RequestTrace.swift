import WebImage

/// One traced request: its span (`/request`, a server span, as imgproxy names it) and the spans of the steps it
/// went through. Steps are recorded where they are timed for the metrics (``ProxyMetrics``), which find the trace
/// of the request they work for in ``current``: a task-local value, which the render service also binds on the
/// render threads it hands work to. A render shared by several requests records its steps in the trace of the
/// request that started it.
final class RequestTrace: Sendable {
    /// The trace of the request being worked for here, if it is traced.
    @TaskLocal static var current: RequestTrace?

    /// The request span's own context (its trace, its identifier).
    let context: TraceContext
    /// The caller's span, from its `traceparent`; 0 when the request started the trace.
    let parentSpanID: UInt64
    private let start = TraceSpan.now()
    private let exporter: TraceExporter
    /// What was learnt about the request on its way (where its result was found), added to its span at the end.
    private let notes = Locked<[(key: String, value: TraceSpan.Value)]>([])

    init(context: TraceContext, parentSpanID: UInt64, exporter: TraceExporter) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.exporter = exporter
    }

    /// A step of the request that has just ended after `duration`: a child span of the request's, in error when
    /// `error` says why the step failed.
    func step(_ name: String, lasting duration: Duration, attributes: [(key: String, value: TraceSpan.Value)] = [],
              error: String? = nil) {
        let end = TraceSpan.now()
        var child = context
        child.spanID = TraceContext.newSpanID()
        exporter.add(TraceSpan(context: child, parentSpanID: context.spanID, name: name, kind: .internalStep,
                               start: end - min(end, UInt64(max(0, duration.nanoseconds))), end: end,
                               attributes: attributes, errorMessage: error))
    }

    /// An attribute for the request's span.
    func note(_ key: String, _ value: TraceSpan.Value) {
        notes.withLock { $0.append((key, value)) }
    }

    /// The request was answered with `status`: its span ends now. A server error (5xx) ends it in error, with
    /// `reason`; a client's (4xx) does not, as OpenTelemetry's HTTP conventions say of a server's span.
    func end(method: String, path: String, status: Int, reason: @autoclosure () -> String) {
        var attributes: [(key: String, value: TraceSpan.Value)] = [
            ("http.request.method", .string(method)), ("url.path", .string(path)),
            ("http.response.status_code", .int(Int64(status))),
        ]
        attributes += notes.withLock { $0 }
        var span = TraceSpan(context: context, parentSpanID: parentSpanID, name: "/request", kind: .server,
                             start: start, end: TraceSpan.now(), attributes: attributes)
        if status >= 500 {
            span.attributes.append(("error.type", .string(String(status))))
            span.errorMessage = reason()
        }
        exporter.add(span)
    }
}
