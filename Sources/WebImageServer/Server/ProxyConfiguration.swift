import Foundation
import Prometheus
import WebImage
import WebImageRedis

/// Everything `webimage serve` is started with (each property is one of its flags).
public struct ProxyConfiguration: Sendable {
    /// The host to listen on. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one. Default 8080.
    public var port = 8080
    /// A Unix domain socket to listen on instead of ``host`` and ``port`` (imgproxy's `IMGPROXY_NETWORK=unix`); a
    /// socket file left at the path by an earlier run is replaced, any other file stops the start. Default `nil`.
    public var unixSocketPath: String?
    /// Connections open at once (imgproxy's `IMGPROXY_MAX_CLIENTS`): while this many are open, no more are
    /// accepted, and new ones wait in the listen queue until one closes, as imgproxy's limited listener makes them
    /// wait. `nil`: no limit. Default 2048, imgproxy's.
    public var maximumClients: Int? = 2048
    /// How long requests in flight at SIGTERM or SIGINT have to finish before the server stops anyway
    /// (imgproxy's `IMGPROXY_GRACEFUL_STOP_TIMEOUT`). `nil`, the default: twice ``requestTimeout``, as in imgproxy.
    public var gracefulStopTimeout: Duration?
    /// Checks URL signatures; `nil` accepts any signature segment (`--insecure`).
    public var signature: URLSignature?
    /// The path every URL lives under (imgproxy's `IMGPROXY_PATH_PREFIX`), as `/images`, without a trailing
    /// slash: `/images/SIGNATURE/OPTIONS/SOURCE`, `/images/health`, `/images/metrics`. The signature covers the
    /// path after the prefix, as imgproxy signs it; a path outside the prefix is 404. Under
    /// ``ImageProxyMiddleware``, it follows the middleware's own mount point. Default empty: URLs start at `/`.
    public var pathPrefix = ""
    /// When set, a request must carry `Authorization: Bearer <secret>` (imgproxy's `IMGPROXY_SECRET`), compared in
    /// constant time, or it is answered 403; `/health` stays open for probes, and a CORS preflight (`OPTIONS`),
    /// which browsers send without credentials, is answered too. Default `nil`: no check.
    public var secret: String?
    /// The origin CORS answers allow (imgproxy's `IMGPROXY_ALLOW_ORIGIN`), as `https://app.example` or `*`: image
    /// answers and their errors then carry `Access-Control-Allow-Origin` with it and
    /// `Access-Control-Allow-Methods: GET, OPTIONS`, and an `OPTIONS` preflight is answered 200 with both.
    /// Default `nil`: no CORS headers, and `OPTIONS` is 405.
    public var allowedOrigin: String?
    /// Whether sources may be on loopback addresses (`127/8`, `::1`, and the unspecified `0.0.0.0` and `::`, which
    /// reach this machine too), as imgproxy's `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`. Default off.
    public var allowsLoopbackSources = false
    /// Whether sources may be on private addresses (`10/8`, `172.16/12`, `192.168/16`, `100.64/10`, `fc00::/7`),
    /// as imgproxy's `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES`. Default off (imgproxy's default is on).
    public var allowsPrivateSources = false
    /// Whether sources may be on link-local addresses (`169.254/16`, where cloud metadata services answer, and
    /// `fe80::/10`), as imgproxy's `IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`. Default off. Multicast addresses
    /// are refused whatever the switches say.
    public var allowsLinkLocalSources = false
    /// The `User-Agent` sent to origins (imgproxy's `IMGPROXY_USER_AGENT`); `nil`: the library's.
    public var userAgent: String?
    /// The most redirects a source download follows (imgproxy's `IMGPROXY_MAX_REDIRECTS`); 0 follows none. One more
    /// is answered 404, as imgproxy answers it. Default 10.
    public var maximumRedirects = 10
    /// When not empty, a source URL must start with one of these, and so must every redirect target (both
    /// compared in a normal form: case of scheme and host, default port, escapes and `..` segments do not count).
    public var allowedSourcePrefixes: [String] = []
    /// Object stores whose `s3://` and `gs://` sources are fetched too, one per provider (imgproxy's
    /// `IMGPROXY_USE_S3` and `IMGPROXY_USE_GCS`). Default none: only http and https sources.
    public var objectStores: [ObjectStore] = []
    /// The folder `local:///path` sources are read from (imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`); nothing
    /// outside it is ever read (`LocalFileSource`). Default `nil`: `local://` sources are refused.
    public var localFilesystemRoot: String?
    /// How a request's source URL becomes the one fetched: imgproxy's `IMGPROXY_URL_REPLACEMENTS`, then
    /// `IMGPROXY_BASE_URL`. Default: used as given.
    public var sourceURLRewriting = SourceURLRewriting()
    /// A DNS server asked for source hosts instead of the system resolver (`--dns-server`); `nil`: the system's.
    /// For split-horizon networks, where the machine's resolver answers with internal addresses, and for tests.
    package var nameServer: NameServer?
    /// Where the source and result caches live (`sources/` and `results/` inside).
    public var cacheDirectory = DiskCache.defaultFolder(namespace: "webimage-serve")
    /// Memory for cached results, in bytes. Default 256 MB.
    public var memoryBytes = 256 * 1024 * 1024
    /// Memory for recently fetched sources, as bytes (decoded to each request's size), in bytes. Default 64 MB.
    /// A source is written to the disk cache only when a second rendering uses it: most sources of a thumbnail
    /// service are rendered once, and a file created for each would cost every render a file creation.
    public var sourceMemoryBytes = 64 * 1024 * 1024
    /// Renders that run at once. Default: the number of cores.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Requests that may wait for a worker; more are answered 429. Default 256.
    public var queueLimit = 256
    /// Formats offered by `Accept` when a URL names none.
    public var negotiation = FormatNegotiation(offersAVIF: false, offersWebP: false)
    /// Sources with more pixels are refused (422). Default 50 megapixels.
    public var maximumSourcePixels = 50_000_000
    /// Most pixels of all an animation's frames together (frames × canvas), checked from the header before they
    /// are decoded; more is refused (422). With ``workers`` renders at once, the frames held at once are bounded
    /// by workers × this × 4 bytes. Default 2²⁸ (1 GiB of RGBA), the library's.
    public var maximumAnimationPixels = DecodeLimits.default.maxTotalPixels
    /// Sources with more bytes are refused (422). Default 30 MB.
    public var maximumSourceBytes = 30 * 1024 * 1024
    /// `Cache-Control: max-age` of results, in seconds. Default one year.
    public var timeToLive = 31_536_000
    /// Whether an answer's `Cache-Control` follows its source's `Cache-Control` or `Expires` instead of
    /// ``timeToLive`` (imgproxy's `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`), when the origin sent either and the URL
    /// does not expire. Sources and results are cached here, so the origin's lifetime is kept with them and
    /// counted down: `max-age=<seconds left>, public`, or `no-cache` once it is over or when the origin said
    /// `no-cache`, `no-store` or `private`. Default off.
    public var passesSourceCacheControl = false
    /// Whether answers carry `Link: <SOURCE>; rel="canonical"` naming their http(s) source (imgproxy's
    /// `IMGPROXY_SET_CANONICAL_HEADER`), so search engines index the original instead of each rendition.
    /// Default off.
    public var setsCanonicalHeader = false
    /// Named option groups.
    public var presets = ProxyPresets()
    /// Whether URLs may only name presets.
    public var onlyPresets = false
    /// Whether URLs may set imgproxy's security options (`max_src_resolution` and the like): off by default, as
    /// in imgproxy, because whoever can change a URL could then lift the server's limits.
    public var allowsSecurityOptions = false
    /// When not empty, the only option names a URL may use, as written (`w` does not allow `width`); presets may
    /// use any. Others are refused (404), as imgproxy's allowed processing options are.
    public var allowedOptions: Set<String> = []
    /// Named info option groups for `/info` URLs (imgproxy's info presets).
    public var infoPresets = ProxyPresets()
    /// Whether `/info` URLs may only name info presets; `nil` follows ``onlyPresets``, as imgproxy's does.
    public var infoOnlyPresets: Bool?
    /// When not empty, the only info option names an `/info` URL may use, as written; presets may use any.
    public var allowedInfoOptions: Set<String> = []
    /// What a source whose format no URL names becomes when its own format is not in this list (imgproxy's
    /// preferred formats). Default JPEG, PNG, GIF.
    public var preferredFormats: [OutputFormat] = [.jpeg, .png, .gif]
    /// How `format:best` chooses (imgproxy's `IMGPROXY_BEST_FORMAT_*`).
    public var bestFormat = BestFormatSettings()
    /// How qualities are searched for (imgproxy's `IMGPROXY_AUTOQUALITY_*`; off by default).
    public var autoquality = AutoqualitySettings()
    /// Quality (1–100) of lossy results when neither the URL nor ``formatQuality`` gives one. Default 80.
    public var quality = 80
    /// Quality per output format when the URL gives none; formats not listed use ``quality``. Default
    /// imgproxy's: WebP 79, AVIF 63, JPEG XL 77.
    public var formatQuality: [OutputFormat: Int] = [.webp: 79, .avif: 63, .jxl: 77]

    /// A file holding the image the `watermark` option draws (imgproxy's `IMGPROXY_WATERMARK_PATH`), read and
    /// decoded once by ``ImageProxy/loadWatermark()``. With neither this nor ``watermarkURL``, the option draws
    /// nothing, as in imgproxy.
    public var watermarkPath: String?
    /// Where the watermark image is downloaded from when there is no ``watermarkPath`` (imgproxy's
    /// `IMGPROXY_WATERMARK_URL`), once, by ``ImageProxy/loadWatermark()``, under the same address policy and size
    /// limit as sources.
    public var watermarkURL: URL?
    /// The image answered, rendered with the request's options, when a source cannot be fetched (imgproxy's
    /// fallback image), with the status and lifetime of such answers. Default: none.
    public var fallbackImage = FallbackImage()

    /// Whether answers leave out the source's metadata unless the URL says `strip_metadata:0` (imgproxy's
    /// `IMGPROXY_STRIP_METADATA`). Default on.
    public var stripsMetadata = true
    /// Whether stripping metadata keeps who made the image and who owns it unless the URL says
    /// `keep_copyright:0` (imgproxy's `IMGPROXY_KEEP_COPYRIGHT`). Default on.
    public var keepsCopyright = true
    /// The watermark's own opacity, above 0 and at most 1 (imgproxy's `IMGPROXY_WATERMARK_OPACITY`): the
    /// `watermark` option's opacity is multiplied by it. Default 1.
    public var watermarkOpacity = 1.0

    /// Whether requests' client hints (`Sec-CH-DPR`/`DPR`, `Sec-CH-Width`/`Width`) set the width and `dpr` a URL
    /// leaves unset (imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`); answers then say which headers they vary on.
    /// Default off.
    public var readsClientHints = false
    /// Whether an SVG source is drawn into a raster answer when the URL names no format, instead of being answered
    /// as sanitised SVG (imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`); the answer's format then follows
    /// ``preferredFormats`` (or `Accept`), and `skip_processing:svg` still passes it on as SVG. Default off.
    public var alwaysRasterizesSVG = false
    /// Whether a HEIC or AVIF source's embedded thumbnail is used instead of its main image when the URL does not
    /// say (`enforce_thumbnail`; imgproxy's `IMGPROXY_ENFORCE_THUMBNAIL`). Default off.
    public var enforcesThumbnail = false
    /// Whether a source of more than 8 bits a sample keeps them in a PNG, AVIF or JPEG XL answer when the URL
    /// does not say (`preserve_hdr`; imgproxy's `IMGPROXY_PRESERVE_HDR`). Default off: answers are 8-bit.
    public var preservesHDR = false

    /// The defaults, for telling which settings a result key must name (one made at start, never changed).
    static let renderingDefaults = ProxyConfiguration()

    /// How URLs' options are read under this configuration.
    var parsingRules: ProcessingOptions.ParsingRules {
        ProcessingOptions.ParsingRules(presets: presets, onlyPresets: onlyPresets,
                                       allowsSecurityOptions: allowsSecurityOptions, allowedOptions: allowedOptions,
                                       stripsMetadata: stripsMetadata, keepsCopyright: keepsCopyright,
                                       enforcesThumbnail: enforcesThumbnail, preservesHDR: preservesHDR)
    }

    /// How `/info` URLs' options are read under this configuration.
    var infoParsingRules: InfoOptions.ParsingRules {
        InfoOptions.ParsingRules(presets: infoPresets, onlyPresets: infoOnlyPresets ?? onlyPresets,
                                 allowsSecurityOptions: allowsSecurityOptions, allowedOptions: allowedInfoOptions)
    }
    /// How long a source download may take: the only limit on it (no shorter wait for a connection or for the
    /// next bytes). Default 10 s.
    public var downloadTimeout: Duration = .seconds(10)
    /// How long a whole request may take, download and rendering included (504 after). Default 30 s.
    public var requestTimeout: Duration = .seconds(30)
    /// The CPU time one render may spend decoding (in process), transforming and encoding before it is stopped and
    /// answered 422; its long loops check it every few rows. Default 5 s (in a release build; debug and sanitized
    /// builds get `WorkBudget.buildSlowdown` times as much).
    public var renderCPUBudget: Duration = .seconds(5) * WorkBudget.buildSlowdown
    /// The pixel memory one render may hold at its peak (its decoded frames, its result's and a working copy,
    /// worked out from the source's header before decoding, `RenderMemoryEstimate`); a render that needs more
    /// is answered 422 before it allocates. Default 2 GiB: the animation limit's 1 GiB of frames and their
    /// rendering fit, and a 50-megapixel 16-bit source kept deep through a filter chain (about 1.8 GB) does.
    public var renderMemoryBudget = 2048 * 1024 * 1024
    /// How long a result refused with a 422 (its source does not decode or is over a limit) is answered with the
    /// same status without fetching or decoding again; zero keeps none. Default 10 s.
    public var failureMemory: Duration = .seconds(10)
    /// Source downloads that run at once (they hold no CPU slot: a slow origin delays only its own requests).
    /// Default 16.
    public var maximumDownloads = 16
    /// Source downloads from one origin (scheme, host and port) that run at once, so that an origin slow to
    /// answer holds only its share of ``maximumDownloads``; a download whose origin is at it is passed over in
    /// line. `nil`, the default: a quarter of ``maximumDownloads``, at least 1.
    public var maximumDownloadsPerOrigin: Int?
    /// How long a client has to send a whole request head, from its first byte; the connection is closed after.
    /// Default 10 s.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a connection may stay open without a request; it is closed after. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// The most bytes the source cache keeps on disk; older entries are swept beyond it (0: no bound).
    /// Default 1 GiB.
    public var sourceCacheBytes = 1024 * 1024 * 1024
    /// The most bytes the result cache keeps on disk, where a result goes when it is asked for again; older entries
    /// are swept beyond it (0: no bound).
    /// Default 1 GiB.
    public var resultCacheBytes = 1024 * 1024 * 1024

    /// A Redis server shared by several proxies (`--redis`): a third cache tier for results and sources, and
    /// render leases so that one proxy renders a result while the others wait for it. `nil`: none.
    public var redis: RedisConfiguration?
    /// How long a render lease lasts: the longest another proxy waits for a result before rendering it itself
    /// (when the holder died). Default 10 s.
    public var redisLeaseTime: Duration = .seconds(10)

    /// The extra health path and the Prometheus listener with imgproxy's metric names. Default: neither.
    public var operations = ProxyOperations()

    /// Where `GET /metrics`'s series live. Parts started beside the proxy (the decode helpers of
    /// `webimage serve`) count into the same registry. Default: a registry of the proxy's own.
    public var metricsRegistry = PrometheusCollectorRegistry()
    /// A swift-metrics factory that records into ``metricsRegistry``.
    public var metricsFactory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: metricsRegistry) }

    /// The defaults described on each property (with no key: call sites set ``signature`` or go insecure).
    public init() {}
}
