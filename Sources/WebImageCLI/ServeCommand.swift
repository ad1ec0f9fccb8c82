import ArgumentParser
import Foundation
import Logging
import WebImage
import WebImageServer

/// `webimage serve`: the image proxy, URL-compatible with imgproxy. Every flag can also be given as an
/// environment variable `WEBIMAGE_<FLAG_IN_CAPS>` (`--max-src-bytes` → `WEBIMAGE_MAX_SRC_BYTES`), and most as
/// imgproxy's variable for the same setting (``ServeSettings``); a flag on the command line wins.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized and converted images over HTTP, with imgproxy's URL format.",
        discussion: """
            URLs: /SIGNATURE/OPTIONS/plain/PERCENT_ENCODED_SOURCE[@EXT] or /SIGNATURE/OPTIONS/BASE64URL_SOURCE[.EXT], \
            signed with HMAC-SHA256(key, salt + path) in unpadded URL-safe Base64 as imgproxy signs them. Without \
            --key the server does not start unless --insecure is given. GET /health answers 200 while serving. \
            Every flag may come from WEBIMAGE_<FLAG_IN_CAPS> instead, and most from imgproxy's IMGPROXY_* \
            variable for the same setting (IMGPROXY_KEY, IMGPROXY_BIND, IMGPROXY_QUALITY, …), read as imgproxy reads \
            them: the flag wins, then WEBIMAGE_*, then IMGPROXY_*. IMGPROXY_* variables without a meaning here are \
            named on stderr and ignored.

            Examples:
              webimage serve --key 943b… --salt 520f… --cache-dir /var/cache/webimage
              webimage serve --insecure --bind 127.0.0.1:9000 --auto-webp --allow-source https://images.example.com/
              curl http://127.0.0.1:9000/_/rs:fill:300:200/g:sm/plain/https://images.example.com/a.jpg@webp
            """)

    @Option(help: ArgumentHelp("Where to listen (default 127.0.0.1:8080; port 0 picks a free one), or unix:PATH for a Unix socket.",
                               valueName: "HOST:PORT"))
    var bind: String?
    @Option(help: ArgumentHelp(
        "The signing key, in hex; several keys (repeated, or comma-separated) pair with the salts by position, and a URL signed with any pair passes.",
        valueName: "HEX"))
    var key: [String] = []
    @Option(help: ArgumentHelp("The signing salt, in hex (repeatable, or comma-separated, as --key).",
                               valueName: "HEX"))
    var salt: [String] = []
    @Option(name: .customLong("signature-size"), help: ArgumentHelp(
        "Bytes of the HMAC a signature holds, 1-32: signatures are made and checked cut to this size (default 32).",
        valueName: "N"))
    var signatureSize: Int?
    @Option(name: .customLong("trusted-signature"), help: ArgumentHelp(
        "A signature segment that passes without a check (repeatable, or comma-separated).", valueName: "SIGNATURE"))
    var trustedSignature: [String] = []
    @Option(name: .customLong("env-file"), help: ArgumentHelp(
        "Read NAME=value lines (an imgproxy env file works) as if they were in the environment; the environment wins.",
        valueName: "PATH"))
    var envFile: String?
    @Flag(help: "Accept any signature segment (no --key). Never on a public network.")
    var insecure = false
    @Option(help: ArgumentHelp(
        "Require Authorization: Bearer SECRET on every request but /health and CORS preflights, else 403 (prefer WEBIMAGE_SECRET: a flag shows in the process list).",
        valueName: "SECRET"))
    var secret: String?
    @Option(name: .customLong("allow-origin"), help: ArgumentHelp(
        "Send Access-Control-Allow-Origin: ORIGIN and Access-Control-Allow-Methods: GET, OPTIONS with image answers, and answer OPTIONS preflights 200.",
        valueName: "ORIGIN"))
    var allowOrigin: String?
    @Option(name: .customLong("path-prefix"), help: ArgumentHelp(
        "Serve every URL under this path, /health and /metrics too (/img/SIGNATURE/OPTIONS/SOURCE); signatures cover the path after it; other paths are 404.",
        valueName: "PATH"))
    var pathPrefix: String?
    @Flag(name: .customLong("allow-loopback-sources"),
          help: "Let sources be on loopback addresses (127/8, ::1, 0.0.0.0).")
    var allowLoopbackSources = false
    @Option(name: .customLong("allow-source"), help: ArgumentHelp(
        "Only fetch sources starting with this prefix (repeatable; the variable takes a comma-separated list).",
        valueName: "PREFIX"))
    var allowSource: [String] = []
    @Option(name: .customLong("dns-server"), help: ArgumentHelp(
        "Resolve source hosts by asking this DNS server over UDP instead of the system resolver (default: the system's; for split-horizon networks and tests).",
        valueName: "HOST:PORT"))
    var dnsServer: String?
    @Option(name: .customLong("cache-dir"),
            help: ArgumentHelp("Where sources and results are cached.", valueName: "DIR"))
    var cacheDirectory: String?
    @Option(help: ArgumentHelp(
        "A Redis server shared with other instances: a third cache tier and render leases (redis://[:PASSWORD@]HOST:PORT/DB, rediss:// for TLS).",
        valueName: "URL"))
    var redis: String?
    @Option(name: .customLong("memory-mb"), help: ArgumentHelp("Memory for cached results (default 256).",
                                                               valueName: "N"))
    var memoryMB: Int?
    @Option(help: ArgumentHelp("Renders at once (default: the number of cores).", valueName: "N"))
    var workers: Int?
    @Option(help: ArgumentHelp("Requests that may wait for a worker before 429 (default 256).", valueName: "N"))
    var queue: Int?
    @Flag(name: .customLong("auto-webp"), help: "Answer WebP to clients that accept it, when the URL names no format.")
    var autoWebP = false
    @Flag(name: .customLong("auto-avif"), help: "Answer AVIF to clients that accept it, when the URL names no format.")
    var autoAVIF = false
    @Option(name: .customLong("max-src-pixels"), help: ArgumentHelp("Refuse larger sources, 422 (default 50 000 000).",
                                                                    valueName: "N"))
    var maxSourcePixels: Int?
    @Option(name: .customLong("max-src-bytes"), help: ArgumentHelp("Refuse larger downloads, 422 (default 31 457 280).",
                                                                   valueName: "N"))
    var maxSourceBytes: Int?
    @Option(name: .customLong("max-animation-pixels"), help: ArgumentHelp(
        "Refuse animations with more pixels over all frames, 422 (default 268 435 456: 1 GiB a render).",
        valueName: "N"))
    var maxAnimationPixels: Int?
    @Option(help: ArgumentHelp("Cache-Control max-age of results in seconds (default 31 536 000).",
                               valueName: "SECONDS"))
    var ttl: Int?
    @Option(help: ArgumentHelp("A presets file: one name=option/option per line.", valueName: "FILE"))
    var presets: String?
    @Flag(name: .customLong("only-presets"), help: "Accept only preset options in URLs.")
    var onlyPresets = false
    @Flag(name: .customLong("allow-security-options"),
          help: "Let URLs set max_src_resolution, max_src_file_size and the other security options.")
    var allowSecurityOptions = false
    @Flag(name: .customLong("keep-metadata"),
          help: "Keep the source's EXIF, XMP and IPTC in answers unless the URL says strip_metadata:1.")
    var keepMetadata = false
    @Flag(name: .customLong("strip-copyright"),
          help: "Strip copyright with the rest of the metadata unless the URL says keep_copyright:1.")
    var stripCopyright = false
    @Option(name: .customLong("allowed-options"), help: ArgumentHelp(
        "The only option names URLs may use, as w,h,pr (default: all); presets may use any.", valueName: "LIST"))
    var allowedOptions: String?
    @Option(name: .customLong("autoquality"), help: ArgumentHelp(
        "How each result's quality is chosen: none (default), size, dssim.", valueName: "METHOD"))
    var autoquality: String?
    @Option(name: .customLong("autoquality-target"), help: ArgumentHelp(
        "Autoquality's target: bytes for size, a DSSIM for dssim (default 0.02).", valueName: "N"))
    var autoqualityTarget: Double?
    @Option(name: .customLong("autoquality-min"), help: ArgumentHelp("Autoquality's lowest quality (default 70).",
                                                                      valueName: "1-100"))
    var autoqualityMin: Int?
    @Option(name: .customLong("autoquality-max"), help: ArgumentHelp("Autoquality's highest quality (default 80).",
                                                                      valueName: "1-100"))
    var autoqualityMax: Int?
    @Option(name: .customLong("autoquality-format-min"), help: ArgumentHelp(
        "Autoquality's lowest quality per format, as avif=60 (the default).", valueName: "LIST"))
    var autoqualityFormatMin: String?
    @Option(name: .customLong("autoquality-format-max"), help: ArgumentHelp(
        "Autoquality's highest quality per format, as avif=65 (the default).", valueName: "LIST"))
    var autoqualityFormatMax: String?
    @Option(name: .customLong("autoquality-allowed-error"), help: ArgumentHelp(
        "How near the DSSIM target is near enough (default 0.002).", valueName: "N"))
    var autoqualityAllowedError: Double?
    @Option(name: .customLong("autoquality-max-pixels"), help: ArgumentHelp(
        "Results with more pixels keep the fixed quality.", valueName: "N"))
    var autoqualityMaxPixels: Int?
    @Option(name: .customLong("best-format-complexity-threshold"), help: ArgumentHelp(
        "format:best encodes results less complex than this losslessly (default 5.5).", valueName: "N"))
    var bestFormatComplexityThreshold: Double?
    @Option(name: .customLong("best-format-max-pixels"), help: ArgumentHelp(
        "format:best encodes results larger than this once, in the format their complexity suggests.",
        valueName: "N"))
    var bestFormatMaxPixels: Int?
    @Flag(name: .customLong("best-format-by-default"), help: "Answer URLs that name no format with format:best.")
    var bestFormatByDefault = false
    @Flag(name: .customLong("best-format-allow-skips"),
          help: "Let format:best pass SVG sources and skip_processing formats on as they are.")
    var bestFormatAllowSkips = false
    @Option(name: .customLong("info-presets"), help: ArgumentHelp(
        "A presets file of /info options: one name=option/option per line.", valueName: "FILE"))
    var infoPresets: String?
    @Flag(name: .customLong("info-only-presets"), help: "Accept only preset options in /info URLs.")
    var infoOnlyPresets = false
    @Option(name: .customLong("allowed-info-options"), help: ArgumentHelp(
        "The only option names /info URLs may use, as bh,th (default: all); presets may use any.", valueName: "LIST"))
    var allowedInfoOptions: String?
    @Option(help: ArgumentHelp("Quality of lossy results when the URL gives none (default 80).", valueName: "1-100"))
    var quality: Int?
    @Option(name: .customLong("format-quality"), help: ArgumentHelp(
        "Quality per format when the URL gives none, as jpeg=70,avif=40 (default webp=79,avif=63,jxl=77).",
        valueName: "LIST"))
    var formatQuality: String?
    @Option(name: .customLong("preferred-formats"), help: ArgumentHelp(
        "What a source in another format becomes when the URL names none (default jpeg,png,gif).",
        valueName: "LIST"))
    var preferredFormats: String?
    @Option(name: .customLong("watermark-path"),
            help: ArgumentHelp("The image the watermark option draws, read at start-up.", valueName: "FILE"))
    var watermarkPath: String?
    @Option(name: .customLong("watermark-url"), help: ArgumentHelp(
        "Where the watermark image is downloaded from at start-up, when there is no --watermark-path.",
        valueName: "URL"))
    var watermarkURL: String?
    @Option(name: .customLong("watermark-opacity"), help: ArgumentHelp(
        "The watermark's own opacity, above 0 and at most 1; the watermark option's opacity is multiplied by it (default 1).",
        valueName: "0-1"))
    var watermarkOpacity: Double?
    @Flag(name: .customLong("enable-client-hints"), help: ArgumentHelp(
        "Take the width and dpr a URL leaves unset from the Sec-CH-Width/Width and Sec-CH-DPR/DPR request headers (answers then say Vary on them)."))
    var enableClientHints = false
    @Flag(name: .customLong("always-rasterize-svg"), help: ArgumentHelp(
        "Draw SVG sources into a raster answer (the preferred formats' rule) when the URL names no format, instead of answering sanitised SVG; skp:svg still answers SVG."))
    var alwaysRasterizeSVG = false
    @Flag(name: .customLong("enforce-thumbnail"), help: ArgumentHelp(
        "Use a HEIC or AVIF source's embedded thumbnail instead of its main image unless the URL says eth:0."))
    var enforceThumbnail = false
    @Flag(name: .customLong("preserve-hdr"), help: ArgumentHelp(
        "Keep a source's samples of more than 8 bits in PNG, AVIF and JPEG XL answers unless the URL says ph:0."))
    var preserveHDR = false
    @Option(name: .customLong("download-timeout"),
            help: ArgumentHelp("Seconds a source download may take, connecting and pauses included, 504 after "
                               + "(default 10).", valueName: "SECONDS"))
    var downloadTimeout: Int?
    @Option(name: .customLong("request-timeout"),
            help: ArgumentHelp("Seconds a whole request may take, 504 after (default 30).", valueName: "SECONDS"))
    var requestTimeout: Int?
    @Option(name: .customLong("failure-ttl"), help: ArgumentHelp(
        "Seconds a result refused with a 422 (a source that does not decode or is over a limit) is answered again "
            + "without fetching or decoding; 0 remembers none (default 10).", valueName: "SECONDS"))
    var failureTTL: Int?
    @Option(name: .customLong("render-cpu-seconds"), help: ArgumentHelp(
        "CPU seconds one render may spend decoding, transforming and encoding; over it is a 422 (default 5).",
        valueName: "SECONDS"))
    var renderCPUSeconds: Double?
    @Option(name: .customLong("render-memory-mb"), help: ArgumentHelp(
        "Pixel memory one render may hold at its peak, worked out before decoding; over it is a 422 (default 2048).",
        valueName: "N"))
    var renderMemoryMB: Int?
    @Option(name: .customLong("header-timeout"), help: ArgumentHelp(
        "Seconds a client has to send a whole request head; the connection is closed after (default 10).",
        valueName: "SECONDS"))
    var headerTimeout: Int?
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(
        "Seconds a connection may stay open without a request; it is closed after (default 60).",
        valueName: "SECONDS"))
    var idleTimeout: Int?
    @Option(name: .customLong("max-downloads"),
            help: ArgumentHelp("Source downloads at once; they hold no render worker (default 16).", valueName: "N"))
    var maxDownloads: Int?
    @Option(name: .customLong("max-downloads-per-origin"), help: ArgumentHelp(
        "Source downloads at once from one origin (scheme, host and port), so a slow origin holds only its share "
            + "of --max-downloads (default a quarter of --max-downloads, at least 1).", valueName: "N"))
    var maxDownloadsPerOrigin: Int?
    @Option(name: .customLong("source-cache-mb"), help: ArgumentHelp(
        "Disk space for cached sources, swept beyond it; 0 for no bound (default 1024).", valueName: "N"))
    var sourceCacheMB: Int?
    @Option(name: .customLong("source-memory-mb"), help: ArgumentHelp(
        "Memory for recently fetched sources; a source goes to disk when a second rendering uses it (default 64).",
        valueName: "N"))
    var sourceMemoryMB: Int?
    @Option(name: .customLong("result-cache-mb"), help: ArgumentHelp(
        "Disk space for cached results (a result goes to disk when it is asked for again), swept beyond it; 0 for no bound (default 1024).", valueName: "N"))
    var resultCacheMB: Int?

    @Flag(name: .customLong("isolate-decoders"), inversion: .prefixedNo, help: ArgumentHelp(
        "Decode HEIC/HEIF, AVIF, JPEG XL, SVG, PDF and TIFF in helper processes, so that a decoder crash costs one request a 422, not the server (on by default)."))
    var isolateDecoders: Bool?
    @Option(name: .customLong("decode-helpers"),
            help: ArgumentHelp("Decode helper processes kept running (default: --workers).", valueName: "N"))
    var decodeHelpers: Int?
    @Option(name: .customLong("decode-timeout"), help: ArgumentHelp(
        "Seconds one isolated decode may take before its helper is killed, 422 (default 10).", valueName: "SECONDS"))
    var decodeTimeout: Int?
    @Option(name: .customLong("decode-memory-mb"),
            help: ArgumentHelp("Address space of each decode helper (default 2048).", valueName: "N"))
    var decodeMemoryMB: Int?
    @OptionGroup var serverOptions: ServerOptions
    @OptionGroup var fetchOptions: ServeFetchOptions
    @OptionGroup var sourceURLOptions: ServeSourceURLOptions
    @OptionGroup var operationsOptions: OperationsOptions
    @OptionGroup var tracingOptions: TracingOptions
    @OptionGroup var fallbackImageOptions: ServeFallbackImageOptions
    @OptionGroup var objectStoreOptions: ObjectStoreOptions

    func run() async throws {
        ProxyServer.runTasksOnEventLoops()
        let settings = ServeSettings(
            command: self, environment: try ServeSettings.environment(command: self,
                                                                      process: ProcessInfo.processInfo.environment))
        let logging = try settings.logging()
        do {
            try await serve(settings, logging: logging)
        } catch {
            throw logging.failure(error)  // in the log's format, as every other line on stderr
        }
    }

    private func serve(_ settings: ServeSettings, logging: ServeLogging) async throws {
        let configuration = try settings.configuration()
        // Before the log handler exists: one line each, written at once.
        for warning in settings.warnings { logging.writeNow(warning) }
        // A line per request: written in batches, not a system call each.
        logging.bootstrap()
        // Every connection costs a descriptor: the soft limit (often 1 024) would let a thousand idle or
        // half-open connections lock every other client out long before memory or CPU run short.
        OpenFileLimit.raiseToHardLimit()
        let logger = Logger(label: "webimage.serve")
        let coders = try settings.decoderIsolation().map { isolation in
            try DecoderHelpers.coders(isolating: isolation, proxy: configuration, logger: logger)
        }
        let proxy = ImageProxy(configuration: configuration, coders: coders ?? .shared, logger: logger)
        try await proxy.start()
        try await ProxyServer.run(proxy, logger: logger) { address in
            // Written unbuffered: scripts and tests wait for this line while the server runs.
            FileHandle.standardOutput.write(Data("listening on \(address)\n".utf8))
        }
    }
}
