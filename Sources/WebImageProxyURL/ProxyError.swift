/// Why a proxy request gets no image: the HTTP status to answer with and a one-line reason for the body.
///
/// Statuses are imgproxy's: 404 for a URL, option or argument that cannot be read (an expired URL and an unknown
/// preset too), for a source that is not allowed or cannot be reached, and for one the origin does not have; 403
/// for a bad signature or a security option the server does not allow; the origin's own 4xx; 422 for a source that
/// is not an image this server decodes or is over a limit, and for a result format it cannot write; 429 when the
/// work queue is full; 499 when the client left; 502 for an origin's 5xx; 504 for a timeout.
public struct ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status code of the answer.
    public let status: Int
    /// What went wrong, in one line without a trailing period.
    public let reason: String

    /// An error answered with `status` and `reason`.
    public init(status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }

    /// `404 Not Found`: the URL or one of its options cannot be read (imgproxy's "Invalid URL").
    package static func invalidURL(_ reason: String) -> ProxyError { ProxyError(status: 404, reason) }

    /// `403 Forbidden`: the signature is wrong, or the URL sets a security option the server does not allow.
    package static func forbidden(_ reason: String) -> ProxyError { ProxyError(status: 403, reason) }

    /// `404 Not Found`: the source is not one this server may fetch (imgproxy hides why from the client's status).
    package static func sourceNotAllowed(_ reason: String) -> ProxyError { ProxyError(status: 404, reason) }

    /// "404 …: reason", for logs.
    public var description: String { "\(status) \(reason)" }
}

/// A server setting that cannot work, reported before the server starts.
public struct ProxyConfigurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, in one line.
    public let description: String

    package init(_ description: String) { self.description = description }
}
