import Foundation

/// Everything a loader needs to fetch one resource. Built by ``ImageDownloader`` from its configuration, the
/// caller's options and context; a request modifier may change any field.
public struct ImageLoadRequest: Sendable {
    /// The resource.
    public var url: URL
    /// Request headers sent as given (after the downloader's defaults and filter).
    public var headers: HTTPHeaderFields
    /// The longest one attempt may take from start to last byte.
    public var timeout: Duration
    /// Basic-auth credentials, sent only to the request's own scheme, host and port, never after a redirect to
    /// another origin.
    public var credentials: BasicCredentials?
    /// Whether cookies stored from earlier responses are sent, and cookies in this response stored.
    public var handlesCookies: Bool
    /// Whether a TLS certificate that does not verify is accepted for this request.
    public var allowsInvalidCertificates: Bool
    /// Whether progress reports carry the bytes received so far.
    public var wantsPartialData: Bool
    /// Status codes that count as success. A 304 is always reported as `ImageError.Code.cacheNotModified`.
    public var acceptableStatusCodes: IndexSet
    /// MIME types that count as success (`image/*` and `*/*` match families); `nil` accepts any.
    public var acceptableContentTypes: Set<String>?
    /// The largest body accepted, in bytes after decompression; a larger one ends with
    /// `ImageError.Code.responseTooLarge` and the transfer is closed at the limit.
    public var maximumBodySize: Int
    /// The most redirects followed; a loop is refused before that.
    public var maximumRedirects: Int
    /// Where the request goes in the downloader's queue.
    public var priority: ImagePriority
    /// When set, the transfer may end as soon as the bytes received are all a decode with its options reads (see
    /// ``EarlyStop``); the response then holds that prefix and says so (``ImageLoadResponse/isPrefix``). `nil`
    /// (the default) reads the whole body.
    package var earlyStop: EarlyStop?

    /// The `Accept` header sent by default: the formats ``ImageCoders/shared`` decodes, modern ones first (see
    /// ``ImageCoders/acceptHeader``). Read when a request is made, so coders registered later count.
    public static var defaultAccept: String { ImageCoders.shared.acceptHeader }
    /// The `User-Agent` header sent by default.
    public static let defaultUserAgent = "swift-web-image/" + LibraryVersion.current
    /// The headers every request starts with.
    public static var defaultHeaders: HTTPHeaderFields {
        ["Accept": defaultAccept, "User-Agent": defaultUserAgent]
    }

    /// Creates a request with the library's defaults: 15 s timeout, 200..<300 accepted, 100 MB limit,
    /// 10 redirects, no cookies, certificates verified.
    public init(url: URL,
                headers: HTTPHeaderFields = ImageLoadRequest.defaultHeaders,
                timeout: Duration = .seconds(15),
                credentials: BasicCredentials? = nil,
                handlesCookies: Bool = false,
                allowsInvalidCertificates: Bool = false,
                wantsPartialData: Bool = false,
                acceptableStatusCodes: IndexSet = IndexSet(integersIn: 200..<300),
                acceptableContentTypes: Set<String>? = nil,
                maximumBodySize: Int = 100 * 1024 * 1024,
                maximumRedirects: Int = 10,
                priority: ImagePriority = .normal) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.credentials = credentials
        self.handlesCookies = handlesCookies
        self.allowsInvalidCertificates = allowsInvalidCertificates
        self.wantsPartialData = wantsPartialData
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.maximumBodySize = maximumBodySize
        self.maximumRedirects = maximumRedirects
        self.priority = priority
    }

    /// Whether `mimeType` is one of ``acceptableContentTypes`` (always true when that is `nil`).
    public func accepts(mimeType: String?) -> Bool {
        guard let acceptableContentTypes else { return true }
        guard let mimeType = mimeType?.lowercased() else { return false }
        let family = mimeType.split(separator: "/").first.map { "\($0)/*" }
        return acceptableContentTypes.contains { accepted in
            let accepted = accepted.lowercased()
            return accepted == "*/*" || accepted == mimeType || accepted == family
        }
    }
}

/// A user name and password sent as HTTP basic authentication.
public struct BasicCredentials: Sendable, Hashable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates credentials.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` header value: `Basic base64(user:password)`.
    public var authorizationHeader: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
