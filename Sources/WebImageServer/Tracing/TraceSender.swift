import AsyncHTTPClient
import Logging
import NIOCore
import WebImage

/// One batch of spans to the collector: an OTLP/HTTP export (`POST`, `application/x-protobuf`, gzip-compressed when
/// asked), answered 2xx when taken. A collector that refuses or does not answer is said once in the log, and
/// again when it takes exports again, not at every batch.
struct TraceSender: Sendable {
    let settings: ProxyTracing
    let client: HTTPClient
    let logger: Logger
    private let failing = Locked(false)

    init(settings: ProxyTracing, client: HTTPClient, logger: Logger) {
        self.settings = settings
        self.client = client
        self.logger = logger
    }

    /// The instrumentation scope the spans are sent under.
    static let scope = "webimage-serve"
    static let version = "1"

    /// Whether the collector took `spans`.
    func send(_ spans: [TraceSpan]) async -> Bool {
        let resource = [("service.name", TraceSpan.Value.string(settings.serviceName))]
            + settings.resourceAttributes.map { ($0.key, TraceSpan.Value.string($0.value)) }
        var body = OTLPTraceEncoding.request(spans, resource: resource, scope: Self.scope, version: Self.version)
        var request = HTTPClientRequest(url: settings.endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-protobuf")
        if settings.compressesExports, let compressed = Gzip.compress(body) {
            body = compressed
            request.headers.add(name: "Content-Encoding", value: "gzip")
        }
        for header in settings.headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let problem: String?
        do {
            let response = try await client.execute(
                request, timeout: TimeAmount(settings.exportTimeout))
            // The answer's body (an ExportTraceServiceResponse, or a Status) is read to free the connection.
            _ = try await response.body.collect(upTo: 1 << 20)
            problem = (200..<300).contains(Int(response.status.code))
                ? nil : "the collector answered \(response.status.code)"
        } catch {
            problem = "\(error)"
        }
        let wasFailing = failing.withLock { failing in
            defer { failing = problem != nil }
            return failing
        }
        if let problem, !wasFailing {
            logger.warning("traces to \(settings.endpoint.absoluteString) are being lost: \(problem)")
        } else if problem == nil, wasFailing {
            logger.info("traces reach \(settings.endpoint.absoluteString) again")
        }
        return problem == nil
    }
}
