import Foundation
import HTTPTypes
import NIOCore

/// What the proxy reads of an HTTP request: independent of the server framework, so the logic is tested without
/// sockets and the framework stays an adapter.
public struct ProxyRequest: Sendable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The path as received, still percent-encoded, without the query.
    public var path: String
    /// The `Accept` header, if any.
    public var accept: String?
    /// The `If-None-Match` header, if any.
    public var ifNoneMatch: String?
    /// What the `Sec-CH-DPR`, `DPR`, `Sec-CH-Width` and `Width` headers say; used only when the proxy reads client
    /// hints (``ProxyConfiguration/readsClientHints``).
    public var clientHints: ClientHints
    /// The `Authorization` header, if any; read only when the proxy has a secret (``ProxyConfiguration/secret``).
    public var authorization: String?
    /// The W3C `traceparent` header, if any: the caller's span, when the proxy traces requests
    /// (``ProxyOperations/tracing``).
    public var traceparent: String?

    /// A request as the adapter saw it.
    public init(method: String, path: String, accept: String? = nil, ifNoneMatch: String? = nil,
                clientHints: ClientHints = ClientHints(), authorization: String? = nil, traceparent: String? = nil) {
        self.method = method
        self.path = path
        self.accept = accept
        self.ifNoneMatch = ifNoneMatch
        self.clientHints = clientHints
        self.authorization = authorization
        self.traceparent = traceparent
    }
}

/// The proxy's answer: status, header fields, body (the buffer written to the socket as it is).
public struct ProxyResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields, in the order to send them.
    public var headers: HTTPFields
    /// The body (empty for 304 and HEAD).
    public var body: ByteBuffer

    /// An answer of `status` with `headers` and `body`.
    public init(status: Int, headers: HTTPFields, body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }

    /// The body's bytes as `Data` (a copy).
    public var bodyData: Data { Data(body.readableBytesView) }
}
