import Foundation
import Logging
import Metrics

/// Settings of an ``ImageDownloader``. Defaults follow SDWebImageDownloader (6 at a time, FIFO, 15 s,
/// 200..<300) plus what it lacks (retries, a size limit, a read timeout).
public struct ImageDownloaderConfiguration: Sendable {
    /// The order queued downloads of equal priority start in.
    public enum ExecutionOrder: Sendable {
        /// First queued, first started.
        case fifo
        /// Last queued, first started.
        case lifo
    }

    /// How many transfers run at once, the downloader's direct callers' and its managers' together; changeable
    /// later with ``ImageDownloader/maxConcurrentDownloads``.
    public var maxConcurrentDownloads = 6
    /// How many of those transfers may go to one origin (scheme, host and port) at once; `nil`, the default,
    /// bounds them by ``maxConcurrentDownloads`` alone (URLSession's `httpMaximumConnectionsPerHost` in spirit).
    /// A queued transfer whose origin is at this bound is passed over, keeping its place in line, so that an
    /// origin slow to answer holds at most this many slots and never the line behind it. Like
    /// ``maxConcurrentDownloads``, it bounds every transfer through the downloader, a manager's included.
    /// Changeable later with ``ImageDownloader/maxConcurrentDownloadsPerHost``.
    public var maxConcurrentDownloadsPerHost: Int?
    /// FIFO or LIFO among queued downloads of equal priority.
    public var executionOrder = ExecutionOrder.fifo
    /// The longest one attempt may take, from start to last byte.
    public var timeout: Duration = .seconds(15)
    /// The longest wait for the next bytes (used for the HTTP loader the downloader creates).
    public var readTimeout: Duration = .seconds(15)
    /// The longest wait for a connection (used for the HTTP loader the downloader creates). The HTTP client
    /// keeps trying a refused connection until then.
    public var connectTimeout: Duration = .seconds(10)
    /// Headers sent with every request (default: the `User-Agent`). Without an `Accept` here, each request gets
    /// ``ImageLoadRequest/defaultAccept`` as it is made: the formats the shared coders decode at that moment.
    public var headers: HTTPHeaderFields = ["User-Agent": ImageLoadRequest.defaultUserAgent]
    /// Rewrites the headers of each request after the per-download headers were added.
    public var headersFilter: (@Sendable (URL, HTTPHeaderFields) -> HTTPHeaderFields)?
    /// Credentials sent to every request's own origin unless a download's context gives others.
    public var credentials: BasicCredentials?
    /// Changes or cancels each request (a download's context may give its own instead).
    public var requestModifier: (@Sendable (ImageLoadRequest) -> ImageLoadRequest?)?
    /// Inspects or rejects each response (a download's context may give its own instead).
    public var responseModifier: (@Sendable (ImageResponseMetadata) -> ImageResponseMetadata?)?
    /// Transforms each body (a download's context may give its own instead).
    public var decryptor: DownloadDecryptor?
    /// Status codes that count as success.
    public var acceptableStatusCodes = IndexSet(integersIn: 200..<300)
    /// MIME types that count as success; `nil` accepts any.
    public var acceptableContentTypes: Set<String>?
    /// The largest body accepted (default 100 MB).
    public var maximumBodySize = 100 * 1024 * 1024
    /// The most redirects followed.
    public var maximumRedirects = 10
    /// Whether ``ImageDownloader/init(configuration:)`` adds the `file:` and `data:` loaders beside HTTP's.
    public var loadsFileAndDataURLs = true
    /// The addresses the HTTP loader the downloader creates may connect to, checked at every hop (default
    /// ``AddressPolicy/unrestricted``; see ``HTTPImageLoader/Configuration/addressPolicy``).
    public var addressPolicy = AddressPolicy.unrestricted
    /// A check of every hop's URL and address for the HTTP loader the downloader creates.
    package var hopCheck: HTTPHopCheck?
    /// A DNS server the HTTP loader the downloader creates asks instead of the system resolver (`nil`, the
    /// default: the system's). For tests and split-horizon setups; see ``NameServer``.
    package var nameServer: NameServer?
    /// The smallest step of `fractionCompleted` between two progress reports to one caller (0 reports every
    /// chunk; the final report is always sent).
    public var minimumProgressInterval = 0.0
    /// Retries after transient failures.
    public var retryPolicy = RetryPolicy()
    /// Spreads out bursts of network requests; `nil` starts them as fast as slots free up.
    public var rateLimit: RateLimit?
    /// Where debug logs go.
    public var logger = Logger(label: "swift-web-image.downloader")
    /// Where counters go; `nil` uses the process-wide `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?

    /// The defaults.
    public init() {}
}
