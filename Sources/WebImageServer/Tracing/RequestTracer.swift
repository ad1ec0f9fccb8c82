/// Decides which requests are traced (the SDKs' samplers) and starts their traces, which end up in ``exporter``.
final class RequestTracer: Sendable {
    let settings: ProxyTracing
    let exporter: TraceExporter

    init(_ settings: ProxyTracing) {
        self.settings = settings
        exporter = TraceExporter(settings)
    }

    /// The trace of a request that arrived with `traceparent` (its header, if any), or `nil` when the request
    /// is not recorded.
    func start(traceparent: String?) -> RequestTrace? {
        let parent = settings.readsTraceContext ? traceparent.flatMap(TraceContext.init(traceparent:)) : nil
        var context = parent ?? TraceContext.newTrace(settings.traceIDs, sampled: true)
        if let parent, settings.followsParentSampling {
            guard parent.sampled else { return nil }
        } else {
            guard Self.ratioSamples(settings.sampleRatio, traceLow: context.traceLow) else { return nil }
        }
        // The request's own span: a new trace's first span is it already; under a caller's, a new one.
        if parent != nil { context.spanID = TraceContext.newSpanID() }
        context.sampled = true
        return RequestTrace(context: context, parentSpanID: parent?.spanID ?? 0, exporter: exporter)
    }

    /// Whether a trace is in the `ratio` of traces kept: decided by its identifier's last 8 bytes (random in
    /// both kinds of identifiers), so that every process that sees the trace decides alike.
    static func ratioSamples(_ ratio: Double, traceLow: UInt64) -> Bool {
        if ratio >= 1 { return true }
        if ratio <= 0 { return false }
        return Double(traceLow >> 11) < ratio * Double(UInt64(1) << 53)
    }
}
