/// Why a proxy request gets no image: the HTTP status to answer with and a one-line reason for the body.
///
/// Statuses follow the contract: 400 for a URL or option that cannot be read, 403 for a bad signature or
/// a source that is not allowed, 404 for a source that does not exist, 410 for an expired URL, 413 for a source
/// over the byte limit, 422 for a source that is not a decodable image or is over the pixel limit, 429 when the work
/// queue is full, 502 for an origin that fails, 504 for a timeout.
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

    /// `400 Bad Request`: the URL or one of its options cannot be read.
    package static func badRequest(_ reason: String) -> ProxyError { ProxyError(status: 400, reason) }

    /// `403 Forbidden`: the signature is wrong, or the source is not allowed.
    package static func forbidden(_ reason: String) -> ProxyError { ProxyError(status: 403, reason) }

    /// "400 …: reason", for logs.
    public var description: String { "\(status) \(reason)" }
}

/// A server setting that cannot work, reported before the server starts.
public struct ProxyConfigurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, in one line.
    public let description: String

    package init(_ description: String) { self.description = description }
}
