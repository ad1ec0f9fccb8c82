/// The one error type the library throws: a stable machine-readable ``Code`` plus a message for people.
///
/// The codes are part of the `webimage` JSON contract, so their raw values never change. SDWebImage's
/// numeric codes are kept in ``Code/legacyCode`` for users porting code that matched on them.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable identifier.
    public enum Code: String, Sendable, CaseIterable {
        case invalidURL
        case badImageData
        case cacheNotModified
        case blackListed
        case invalidDownloadStatusCode
        case cancelled
        case invalidDownloadResponse
        case invalidDownloadContentType
        case timedOut
        case connectionFailed
        /// The server refused the connection: nothing listens at its address and port (a server that is down, or
        /// a wrong port). Known at once, not at the connect timeout; tried again like ``connectionFailed``.
        case connectionRefused
        case responseTooLarge
        case imageTooLarge
        case unsupportedFormat
        /// An argument out of its range: a frame or page past the last, a transformer parameter that makes no
        /// sense. Not the data's fault, so it never blocks a URL.
        case invalidParameter
        /// A request the HTTP loader's `AddressPolicy` or hop check refused to send (an address on the local
        /// network, say). Nothing was sent to that destination.
        case destinationRefused
        case notFoundInCache
        case io

        /// SDWebImage's number for the same condition, or `nil` for codes SDWebImage does not have.
        public var legacyCode: Int? {
            switch self {
            case .invalidURL: 1000
            case .badImageData: 1001
            case .cacheNotModified: 1002
            case .blackListed: 1003
            case .invalidDownloadStatusCode: 2001
            case .cancelled: 2002
            case .invalidDownloadResponse: 2003
            case .invalidDownloadContentType: 2004
            default: nil
            }
        }
    }

    /// The stable identifier of the failure.
    public let code: Code
    /// A one-line explanation for logs and command-line output.
    public let message: String
    /// The HTTP status behind an ``Code/invalidDownloadStatusCode`` failure (the manager blocks a URL after a
    /// 404 or 410 but not after a 5xx), and behind a ``Code/blackListed`` one that such a failure blocked; `nil`
    /// for every other failure. ``httpStatus(for:)`` is what a server answers its own client.
    public let statusCode: Int?

    /// What arrived of a body that broke off, when it can be continued; `nil` otherwise. The library's own
    /// retries resume from it.
    package let partialBody: PartialBody?

    /// The HTTP response behind the failure, when there was one: an unacceptable status, content type, or a
    /// ``Code/cacheNotModified`` answer (whose headers refresh a cached entry's validators and freshness).
    public let response: ImageResponseMetadata?

    /// The error this one was made from (a transport, TLS, file-system or system error), for logs and for
    /// callers that need more than the ``code``; `nil` when the library itself detected the failure. Not part of
    /// equality.
    public let underlyingError: (any Error)?

    /// Creates an error with a code, a human-readable message and, for HTTP failures, the status and the
    /// response; `underlyingError` is the error it was made from, if any.
    public init(_ code: Code, _ message: String, statusCode: Int? = nil, response: ImageResponseMetadata? = nil,
                underlyingError: (any Error)? = nil) {
        self.init(code, message, statusCode: statusCode, partialBody: nil, response: response,
                  underlyingError: underlyingError)
    }

    /// The same, with what arrived of a broken body (the library's loaders keep it for resuming).
    package init(_ code: Code, _ message: String, statusCode: Int? = nil, partialBody: PartialBody?,
                 response: ImageResponseMetadata? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.statusCode = statusCode ?? response?.statusCode
        self.partialBody = partialBody
        self.response = response
        self.underlyingError = underlyingError
    }

    /// This error with `underlyingError` recorded as its cause.
    package func causedBy(_ underlyingError: any Error) -> ImageError {
        ImageError(code, message, statusCode: statusCode, partialBody: partialBody, response: response,
                   underlyingError: underlyingError)
    }

    /// Equal when code, message, status, partial body and response are; the underlying error is not compared.
    public static func == (lhs: ImageError, rhs: ImageError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.statusCode == rhs.statusCode
            && lhs.partialBody == rhs.partialBody && lhs.response == rhs.response
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
