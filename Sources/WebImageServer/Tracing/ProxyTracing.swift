import Foundation

/// Where and how the proxy sends OpenTelemetry traces: a span per request (`/request`, as imgproxy names it) with a
/// child span for each stage of a render (`queue`, `downloading_image`, `decoding_image`, `processing_image`,
/// `encoding_image`), exported in batches to an OTLP collector over HTTP (`http/protobuf`). The settings are the
/// OpenTelemetry SDKs' (`OTEL_*`), read by `webimage serve`; the defaults are the SDKs' defaults.
public struct ProxyTracing: Sendable {
    /// How a new trace's identifier is made.
    public enum TraceIDs: Sendable, Equatable {
        /// 16 random bytes.
        case random
        /// Amazon X-Ray's form, imgproxy's default: the first 4 bytes the Unix time in seconds, then 12 random
        /// bytes, so that X-Ray accepts the traces and sorts them by time.
        case xray
    }

    /// The collector's traces URL, path included (`http://localhost:4318/v1/traces`).
    public var endpoint: URL
    /// Header fields sent with every export (a collector's API key, say).
    public var headers: [(name: String, value: String)] = []
    /// How long one export may take before it is given up (its spans are then dropped). Default 10 s.
    public var exportTimeout: Duration = .seconds(10)
    /// Whether exports are sent gzip-compressed (`Content-Encoding: gzip`). Default: not.
    public var compressesExports = false
    /// The `service.name` resource attribute. Default `webimage`.
    public var serviceName = "webimage"
    /// Further resource attributes (`deployment.environment=prod`, …), sent with every export.
    public var resourceAttributes: [(key: String, value: String)] = []
    /// The share of requests without a sampled parent whose trace is recorded: 1 records all (the default), 0
    /// none.
    public var sampleRatio = 1.0
    /// Whether a request with a `traceparent` follows its parent's decision (the SDKs' `parentbased_*`
    /// samplers, their default); otherwise ``sampleRatio`` decides for every request.
    public var followsParentSampling = true
    /// Whether a request's W3C `traceparent` header makes its span a child of the caller's (the SDKs'
    /// `tracecontext` propagator, on by default).
    public var readsTraceContext = true
    /// How new trace identifiers are made. Default ``TraceIDs/xray``, as imgproxy.
    public var traceIDs = TraceIDs.xray
    /// How long finished spans wait to be sent with others. Default 5 s.
    public var scheduleDelay: Duration = .seconds(5)
    /// Finished spans waiting to be sent, at most; more are dropped (and counted). Default 2048.
    public var maximumQueuedSpans = 2048
    /// Spans sent in one export, at most. Default 512.
    public var maximumBatchSpans = 512
    /// PEM certificates trusted for an `https` collector instead of the system's.
    public var trustedCertificatesPEM: String?
    /// A PEM certificate chain and private key for a collector that asks for the client's (mutual TLS).
    public var clientCertificatePEM: String?
    public var clientKeyPEM: String?

    /// Traces sent to `endpoint`, with the SDKs' defaults for everything else.
    public init(endpoint: URL) {
        self.endpoint = endpoint
    }

    /// The SDKs' default collector: `http://localhost:4318/v1/traces`.
    public static let defaultEndpoint = URL(string: "http://localhost:4318/v1/traces")!
}
