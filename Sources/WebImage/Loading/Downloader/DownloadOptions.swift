import Foundation

/// Per-download switches, named after SDWebImage's downloader options.
public struct DownloadOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Queue behind normal downloads.
    public static let lowPriority = DownloadOptions(rawValue: 1 << 0)
    /// Queue ahead of normal downloads.
    public static let highPriority = DownloadOptions(rawValue: 1 << 1)
    /// Deliver the bytes received so far with each progress report, for progressive decoding.
    public static let progressiveLoad = DownloadOptions(rawValue: 1 << 2)
    /// Send stored cookies and store the response's cookies.
    public static let handleCookies = DownloadOptions(rawValue: 1 << 3)
    /// Accept a TLS certificate that does not verify (self-signed, expired, wrong host) for this download only.
    public static let allowInvalidSSLCertificates = DownloadOptions(rawValue: 1 << 4)
    /// Do not retry this download after a transient failure, whatever the downloader's retry policy says.
    public static let noRetry = DownloadOptions(rawValue: 1 << 5)

    /// The queue priority these options ask for.
    public var priority: ImagePriority {
        if contains(.highPriority) { return .high }
        if contains(.lowPriority) { return .low }
        return .normal
    }
}

/// Changes or cancels a request before it is sent: return a changed copy, or `nil` to cancel the download
/// (the caller gets `ImageError.Code.cancelled`).
package typealias DownloadRequestModifier = @Sendable (ImageLoadRequest) -> ImageLoadRequest?

/// Inspects or changes a response head before the body is handed to the caller: return `nil` to reject it
/// (the caller gets `ImageError.Code.invalidDownloadResponse`). It runs per caller once the shared transfer
/// has finished, so callers of one transfer may judge its response differently.
package typealias DownloadResponseModifier = @Sendable (ImageResponseMetadata) -> ImageResponseMetadata?

/// One request's additions to its defaults (SDWebImage's context keys for a download): a downloader's
/// configuration, or the library's defaults for a loader that is not a downloader's. A downloader's
/// ``ImageDownloader/download(_:options:context:progress:)`` takes it directly, a manager's load in
/// ``ImageContext/download``.
public struct DownloadContext: Sendable {
    /// Headers added to (and replacing) the default headers for this request.
    public var headers: HTTPHeaderFields
    /// Basic-auth credentials for the request's own origin, replacing the default ones.
    public var credentials: BasicCredentials?
    /// Changes (or cancels, by returning `nil`) the request before it is sent; used instead of the downloader's.
    public var requestModifier: (@Sendable (ImageLoadRequest) -> ImageLoadRequest?)?
    /// Checks or rewrites the response head (`nil` fails the load with
    /// `ImageError.Code.invalidDownloadResponse`); used instead of the downloader's.
    public var responseModifier: (@Sendable (ImageResponseMetadata) -> ImageResponseMetadata?)?
    /// Turns the received bytes into image bytes (decryption, unwrapping); used instead of the downloader's.
    public var decryptor: DownloadDecryptor?
    /// The longest one attempt may take, from start to last byte, replacing the default.
    public var timeout: Duration?

    /// Creates a context; every field is optional.
    public init(headers: HTTPHeaderFields = HTTPHeaderFields(), credentials: BasicCredentials? = nil,
                requestModifier: (@Sendable (ImageLoadRequest) -> ImageLoadRequest?)? = nil,
                responseModifier: (@Sendable (ImageResponseMetadata) -> ImageResponseMetadata?)? = nil,
                decryptor: DownloadDecryptor? = nil, timeout: Duration? = nil) {
        self.headers = headers
        self.credentials = credentials
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.decryptor = decryptor
        self.timeout = timeout
    }
}
