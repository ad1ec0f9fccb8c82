import HTTPTypes
import WebImageProxyURL

/// What a request must pass before the proxy reads its route, and what answers carry for browsers, from imgproxy's
/// settings for them: the path prefix every URL lives under (``ProxyConfiguration/pathPrefix``), the bearer
/// secret (``ProxyConfiguration/secret``) and the CORS origin (``ProxyConfiguration/allowedOrigin``).
struct ProxyAccess: Sendable {
    /// The prefix, without a trailing slash; empty for none.
    let pathPrefix: String
    /// `Bearer <secret>` as bytes, when a secret is set.
    private let expectedAuthorization: [UInt8]?
    /// `Access-Control-Allow-Origin` and `-Methods`, when an origin is set.
    private let corsFields: HTTPFields?

    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let allowMethods = HTTPField.Name("Access-Control-Allow-Methods")!

    init(configuration: ProxyConfiguration) {
        var prefix = Substring(configuration.pathPrefix)
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        pathPrefix = String(prefix)
        expectedAuthorization = configuration.secret.map { Array("Bearer \($0)".utf8) }
        corsFields = configuration.allowedOrigin.map { [Self.allowOrigin: $0, Self.allowMethods: "GET, OPTIONS"] }
    }

    /// Whether preflights are answered (a CORS origin is set).
    var answersPreflights: Bool { corsFields != nil }

    /// `request` with its path made relative to the prefix (the prefix itself reads as `/`), as the routes and
    /// the signature see it; `nil` when the path is outside the prefix (imgproxy answers 404: no route).
    func inside(_ request: ProxyRequest) -> ProxyRequest? {
        guard !pathPrefix.isEmpty else { return request }
        let path = request.path.utf8
        guard path.starts(with: pathPrefix.utf8) else { return nil }
        let rest = request.path.utf8.dropFirst(pathPrefix.utf8.count)
        guard rest.isEmpty || rest.first == UInt8(ascii: "/") else { return nil }
        var inner = request
        inner.path = rest.isEmpty ? "/" : String(Substring(rest))
        return inner
    }

    /// Whether `request` carries the secret (always, with none set). Compared in a time that depends only on the
    /// lengths, so that a guess learns nothing from how long its refusal took.
    func admits(_ request: ProxyRequest) -> Bool {
        guard let expectedAuthorization else { return true }
        guard let given = request.authorization else { return false }
        return HMACSHA256.constantTimeEquals(Array(given.utf8), expectedAuthorization)
    }

    /// Adds the CORS fields to `response`, when an origin is set.
    func addCORS(to response: inout ProxyResponse) {
        guard let corsFields else { return }
        for field in corsFields { response.headers[field.name] = field.value }
    }
}
