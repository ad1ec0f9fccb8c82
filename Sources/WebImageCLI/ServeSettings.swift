import Foundation
import WebImage
import WebImageRedis
import WebImageServer

/// `webimage serve`'s settings, each read from its flag, else `WEBIMAGE_<NAME>`, else imgproxy's variable for it
/// (``ServeSettingSource``), and checked before the server starts: every mistake is one line and a non-zero exit,
/// never a server that half works. imgproxy's variables that mean nothing here are reported in ``warnings``.
struct ServeSettings {
    let command: ServeCommand
    let source: ServeSettingSource

    /// What an imgproxy source limit of 0 ("none") becomes: more than any download could hold.
    private static let noByteLimit = 1 << 50

    /// Settings from `environment`, which already holds the `--env-file`'s variables under the process's own
    /// (``environment(command:process:)``).
    init(command: ServeCommand, environment: [String: String]) {
        self.command = command
        source = ServeSettingSource(environment: environment)
    }

    /// The process's environment over the variables of the env file named by `--env-file`, `WEBIMAGE_ENV_FILE`
    /// or imgproxy's `IMGPROXY_ENV_LOCAL_FILE_PATH`, in that order (imgproxy lets its file win over the
    /// environment; here the environment wins, so that one variable can be changed for one run).
    static func environment(command: ServeCommand, process: [String: String]) throws -> [String: String] {
        let path = command.envFile ?? process["WEBIMAGE_ENV_FILE"]
            ?? process["IMGPROXY_ENV_LOCAL_FILE_PATH"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path else { return process }
        return try EnvironmentFile.variables(atPath: path).merging(process) { _, real in real }
    }

    /// One line for each imgproxy variable that is set but not honoured, and for each deprecated imgproxy name in
    /// use; complete once ``configuration()`` has run.
    var warnings: [String] {
        var consulted = source.consulted
        consulted.insert("IMGPROXY_ENV_LOCAL_FILE_PATH")
        return source.notes + source.deprecatedNamesUsed.map { "warning: \($0.used) is deprecated, use \($0.current) instead" }
            + UnsupportedImgproxyVariables.warnings(environment: source.environment, consulted: consulted)
    }

    func configuration() throws -> ProxyConfiguration {
        var configuration = ProxyConfiguration()
        try network(&configuration)
        try signature(&configuration)
        try access(&configuration)
        try sources(&configuration)
        try limits(&configuration)
        try rendering(&configuration)
        try bestFormat(&configuration)
        try autoquality(&configuration)
        try timeouts(&configuration)
        try caches(&configuration)
        try server(&configuration)
        try operations(&configuration)
        try tracing(&configuration)
        try fetching(&configuration)
        try sourceURLs(&configuration)
        try fallbackImage(&configuration)
        try objectStores(&configuration)
        if try source.imgproxyBool("IMGPROXY_FAIL_ON_DEPRECATION") == true,
           let deprecated = source.deprecatedNamesUsed.first {
            throw ServeError("\(deprecated.used) is deprecated, use \(deprecated.current) instead "
                             + "(IMGPROXY_FAIL_ON_DEPRECATION is true)")
        }
        return configuration
    }

    /// `--bind HOST:PORT` or `--bind unix:PATH`; imgproxy's `IMGPROXY_BIND` is a path when `IMGPROXY_NETWORK` is
    /// `unix` (its `unixpacket`, a socket of messages, cannot carry HTTP here).
    func network(_ configuration: inout ProxyConfiguration) throws {
        let network = source.find("", imgproxy: ["IMGPROXY_NETWORK"])
        let unix = network?.text == "unix"
        if let network, !["tcp", "tcp4", "tcp6", "unix"].contains(network.text) {
            throw ServeError("\(network.origin)=\(network.text): expected tcp, tcp4, tcp6 or unix")
        }
        guard let bind = source.text(command.bind, flag: "--bind", "BIND", imgproxy: ["IMGPROXY_BIND"]) else {
            if unix { throw ServeError("IMGPROXY_NETWORK=unix needs IMGPROXY_BIND=/path/to.sock") }
            return
        }
        if bind.text.hasPrefix("unix:") || (unix && bind.isImgproxy) {
            let path = bind.text.hasPrefix("unix:") ? String(bind.text.dropFirst("unix:".count)) : bind.text
            guard !path.isEmpty else { throw ServeError("\(bind.origin) \(bind.text): the socket path is empty") }
            configuration.unixSocketPath = path
            return
        }
        (configuration.host, configuration.port) = try Self.address(bind.text, origin: bind.origin,
                                                                     emptyHostMeansAll: bind.isImgproxy)
    }

    private func signature(_ configuration: inout ProxyConfiguration) throws {
        // Keys and salts are read apart (a key from the environment, a salt from a flag is fine), then paired.
        let keys = source.list(command.key, flag: "--key", "KEY", imgproxy: ["IMGPROXY_KEY"], keepsEmptyItems: true)
        let salts = source.list(command.salt, flag: "--salt", "SALT", imgproxy: ["IMGPROXY_SALT"],
                                keepsEmptyItems: true)
        let size = try source.wholeNumber(command.signatureSize, flag: "--signature-size", "SIGNATURE_SIZE",
                                          imgproxy: ["IMGPROXY_SIGNATURE_SIZE"], minimum: 1)
        let trusted = source.list(command.trustedSignature, flag: "--trusted-signature", "TRUSTED_SIGNATURE",
                                  imgproxy: ["IMGPROXY_TRUSTED_SIGNATURES"])
        let insecure = try source.switchOn(command.insecure, "INSECURE")
        switch (keys, salts) {
        case let (keys?, salts?):
            do {
                configuration.signature = try URLSignature(keysHex: keys.items, saltsHex: salts.items,
                                                           size: size ?? 32, trustedSignatures: trusted?.items ?? [])
            } catch {
                let origins = Set([keys.origin, salts.origin]).sorted().joined(separator: " and ")
                throw ServeError("\(origins): \(error)")
            }
        case (nil, nil):
            guard insecure else {
                throw ServeError("no --key and --salt: give both, or --insecure to accept unsigned URLs")
            }
        default:
            throw ServeError("--key and --salt go together: give both")
        }
    }

    private func sources(_ configuration: inout ProxyConfiguration) throws {
        if let prefixes = source.list(command.allowSource, flag: "--allow-source", "ALLOW_SOURCE",
                                      imgproxy: ["IMGPROXY_ALLOWED_SOURCES"]) {
            configuration.allowedSourcePrefixes = prefixes.items
            // imgproxy's `*` (any characters but `/`) is not read here: such a prefix matches only as written,
            // so its sources are refused, which is safe but may not be what was meant.
            for pattern in prefixes.items where prefixes.origin.hasPrefix("IMGPROXY_") && pattern.contains("*") {
                source.warn("warning: \(prefixes.origin): the * in \(pattern) is not a wildcard here (yet): "
                            + "only sources starting with it as written are allowed")
            }
        }
        if let text = source.text(command.dnsServer, flag: "--dns-server", "DNS_SERVER") {
            guard let server = NameServer(text.text) else {
                throw ServeError("\(text.origin) \(text.text): expected ADDRESS:PORT with an IP address")
            }
            configuration.nameServer = server
        }
        if let text = source.text(command.watermarkPath, flag: "--watermark-path", "WATERMARK_PATH",
                                  imgproxy: ["IMGPROXY_WATERMARK_PATH"]) {
            configuration.watermarkPath = text.text
        }
        if let text = source.text(command.watermarkURL, flag: "--watermark-url", "WATERMARK_URL",
                                  imgproxy: ["IMGPROXY_WATERMARK_URL"]) {
            guard let url = URL(string: text.text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ServeError("\(text.origin) \(text.text): expected an http or https URL")
            }
            configuration.watermarkURL = url
        }
    }

    private func limits(_ configuration: inout ProxyConfiguration) throws {
        if let workers = try source.wholeNumber(command.workers, flag: "--workers", "WORKERS",
                                                imgproxy: ["IMGPROXY_WORKERS", "IMGPROXY_CONCURRENCY"], minimum: 1) {
            configuration.workers = workers
        }
        if let queue = try source.wholeNumber(command.queue, flag: "--queue", "QUEUE",
                                              imgproxy: ["IMGPROXY_REQUESTS_QUEUE_SIZE"], imgproxyZero: .max,
                                              minimum: 0) {
            configuration.queueLimit = queue
        }
        if let pixels = try source.wholeNumber(command.maxSourcePixels, flag: "--max-src-pixels", "MAX_SRC_PIXELS",
                                               imgproxy: ["IMGPROXY_MAX_SRC_RESOLUTION"], unit: .megapixels,
                                               minimum: 1) {
            configuration.maximumSourcePixels = pixels
        }
        if let bytes = try source.wholeNumber(command.maxSourceBytes, flag: "--max-src-bytes", "MAX_SRC_BYTES",
                                              imgproxy: ["IMGPROXY_MAX_SRC_FILE_SIZE"], imgproxyZero: Self.noByteLimit,
                                              minimum: 1) {
            configuration.maximumSourceBytes = bytes
        }
        if let pixels = try source.wholeNumber(command.maxAnimationPixels, flag: "--max-animation-pixels",
                                               "MAX_ANIMATION_PIXELS", minimum: 1) {
            configuration.maximumAnimationPixels = pixels
        }
        if let downloads = try source.wholeNumber(command.maxDownloads, flag: "--max-downloads", "MAX_DOWNLOADS",
                                                  minimum: 1) {
            configuration.maximumDownloads = downloads
        }
        if let downloads = try source.wholeNumber(command.maxDownloadsPerOrigin, flag: "--max-downloads-per-origin",
                                                  "MAX_DOWNLOADS_PER_ORIGIN", minimum: 1) {
            configuration.maximumDownloadsPerOrigin = downloads
        }
        configuration.allowsSecurityOptions = try source.switchOn(
            command.allowSecurityOptions, "ALLOW_SECURITY_OPTIONS", imgproxy: ["IMGPROXY_ALLOW_SECURITY_OPTIONS"])
        if let list = source.list(command.allowedOptions.map { [$0] } ?? [], flag: "--allowed-options",
                                  "ALLOWED_OPTIONS", imgproxy: ["IMGPROXY_ALLOWED_PROCESSING_OPTIONS"]) {
            configuration.allowedOptions = Set(list.items)
        }
        try presets(&configuration)
        configuration.onlyPresets = try source.switchOn(command.onlyPresets, "ONLY_PRESETS",
                                                        imgproxy: ["IMGPROXY_ONLY_PRESETS"])
        try infoEndpoint(&configuration)
    }

    private func rendering(_ configuration: inout ProxyConfiguration) throws {
        configuration.negotiation = FormatNegotiation(
            offersAVIF: try source.switchOn(command.autoAVIF, "AUTO_AVIF",
                                            imgproxy: ["IMGPROXY_AUTO_AVIF", "IMGPROXY_ENABLE_AVIF_DETECTION"]),
            offersWebP: try source.switchOn(command.autoWebP, "AUTO_WEBP",
                                            imgproxy: ["IMGPROXY_AUTO_WEBP", "IMGPROXY_ENABLE_WEBP_DETECTION"]))
        if let quality = try source.wholeNumber(command.quality, flag: "--quality", "QUALITY",
                                                imgproxy: ["IMGPROXY_QUALITY"], minimum: 1) {
            guard quality <= 100 else { throw ServeError("the quality must be at most 100, not \(quality)") }
            configuration.quality = quality
        }
        if let list = source.text(command.formatQuality, flag: "--format-quality", "FORMAT_QUALITY",
                                  imgproxy: ["IMGPROXY_FORMAT_QUALITY"]) {
            configuration.formatQuality = try Self.formatQualities(list.text, origin: list.origin)
        }
        if let list = source.text(command.preferredFormats, flag: "--preferred-formats", "PREFERRED_FORMATS",
                                  imgproxy: ["IMGPROXY_PREFERRED_FORMATS"]) {
            configuration.preferredFormats = try Self.formats(list.text, flagName: list.origin)
        }
        if let text = source.text(command.watermarkOpacity.map { String($0) }, flag: "--watermark-opacity",
                                  "WATERMARK_OPACITY", imgproxy: ["IMGPROXY_WATERMARK_OPACITY"]) {
            guard let opacity = Double(text.text), opacity > 0, opacity <= 1 else {
                throw ServeError("\(text.origin) \(text.text): expected a number above 0 and at most 1")
            }
            configuration.watermarkOpacity = opacity
        }
        configuration.stripsMetadata = try !source.switchOn(
            command.keepMetadata, "KEEP_METADATA", imgproxy: ["IMGPROXY_STRIP_METADATA"], imgproxyMeansOpposite: true)
        configuration.keepsCopyright = try !source.switchOn(
            command.stripCopyright, "STRIP_COPYRIGHT", imgproxy: ["IMGPROXY_KEEP_COPYRIGHT"],
            imgproxyMeansOpposite: true)
        configuration.readsClientHints = try source.switchOn(command.enableClientHints, "ENABLE_CLIENT_HINTS",
                                                             imgproxy: ["IMGPROXY_ENABLE_CLIENT_HINTS"])
        configuration.alwaysRasterizesSVG = try source.switchOn(command.alwaysRasterizeSVG, "ALWAYS_RASTERIZE_SVG",
                                                                imgproxy: ["IMGPROXY_ALWAYS_RASTERIZE_SVG"])
        configuration.enforcesThumbnail = try source.switchOn(command.enforceThumbnail, "ENFORCE_THUMBNAIL",
                                                              imgproxy: ["IMGPROXY_ENFORCE_THUMBNAIL"])
        configuration.preservesHDR = try source.switchOn(command.preserveHDR, "PRESERVE_HDR",
                                                         imgproxy: ["IMGPROXY_PRESERVE_HDR"])
        if let ttl = try source.wholeNumber(command.ttl, flag: "--ttl", "TTL", imgproxy: ["IMGPROXY_TTL"],
                                            minimum: 0) {
            configuration.timeToLive = ttl
        }
    }

    private func timeouts(_ configuration: inout ProxyConfiguration) throws {
        if let seconds = try source.wholeNumber(command.downloadTimeout, flag: "--download-timeout",
                                                "DOWNLOAD_TIMEOUT", imgproxy: ["IMGPROXY_DOWNLOAD_TIMEOUT"],
                                                minimum: 1) {
            configuration.downloadTimeout = .seconds(seconds)
        }
        if let seconds = try source.wholeNumber(command.requestTimeout, flag: "--request-timeout", "REQUEST_TIMEOUT",
                                                imgproxy: ["IMGPROXY_TIMEOUT"], minimum: 1) {
            configuration.requestTimeout = .seconds(seconds)
        }
        if let seconds = try source.wholeNumber(command.failureTTL, flag: "--failure-ttl", "FAILURE_TTL", minimum: 0) {
            configuration.failureMemory = .seconds(seconds)
        }
        if let text = source.text(command.renderCPUSeconds.map { String($0) }, flag: "--render-cpu-seconds",
                                  "RENDER_CPU_SECONDS") {
            guard let seconds = Double(text.text), seconds > 0, seconds <= 86_400 else {
                throw ServeError("\(text.origin) \(text.text): expected a number of seconds above 0")
            }
            configuration.renderCPUBudget = .milliseconds(Int((seconds * 1000).rounded(.up)))
        }
        if let megabytes = try source.wholeNumber(command.renderMemoryMB, flag: "--render-memory-mb",
                                                  "RENDER_MEMORY_MB", minimum: 1) {
            configuration.renderMemoryBudget = megabytes * 1024 * 1024
        }
        if let seconds = try source.wholeNumber(
            command.headerTimeout, flag: "--header-timeout", "HEADER_TIMEOUT",
            imgproxy: ["IMGPROXY_READ_REQUEST_TIMEOUT", "IMGPROXY_READ_TIMEOUT"], minimum: 1) {
            configuration.headerTimeout = .seconds(seconds)
        }
        // imgproxy's 0 turns keep-alive off; the nearest here is closing an idle connection after a second.
        if let seconds = try source.wholeNumber(command.idleTimeout, flag: "--idle-timeout", "IDLE_TIMEOUT",
                                                imgproxy: ["IMGPROXY_KEEP_ALIVE_TIMEOUT"], imgproxyZero: 1,
                                                minimum: 1) {
            configuration.idleTimeout = .seconds(seconds)
        }
    }

    private func caches(_ configuration: inout ProxyConfiguration) throws {
        if let folder = source.text(command.cacheDirectory, flag: "--cache-dir", "CACHE_DIR") {
            configuration.cacheDirectory = URL(fileURLWithPath: folder.text, isDirectory: true)
        }
        if let url = source.text(command.redis, flag: "--redis", "REDIS") {
            do {
                configuration.redis = try RedisConfiguration(url: url.text)
            } catch {
                throw ServeError("--redis: \(error)")
            }
        }
        if let megabytes = try source.wholeNumber(command.memoryMB, flag: "--memory-mb", "MEMORY_MB", minimum: 1) {
            configuration.memoryBytes = megabytes * 1024 * 1024
        }
        if let megabytes = try source.wholeNumber(command.sourceCacheMB, flag: "--source-cache-mb", "SOURCE_CACHE_MB",
                                                  minimum: 0) {
            configuration.sourceCacheBytes = megabytes * 1024 * 1024
        }
        if let megabytes = try source.wholeNumber(command.sourceMemoryMB, flag: "--source-memory-mb",
                                                  "SOURCE_MEMORY_MB", minimum: 0) {
            configuration.sourceMemoryBytes = megabytes * 1024 * 1024
        }
        if let megabytes = try source.wholeNumber(command.resultCacheMB, flag: "--result-cache-mb", "RESULT_CACHE_MB",
                                                  minimum: 0) {
            configuration.resultCacheBytes = megabytes * 1024 * 1024
        }
    }

    /// Decoder isolation, on unless `--no-isolate-decoders` (or `WEBIMAGE_ISOLATE_DECODERS=0`) turns it off.
    func decoderIsolation() throws -> DecoderIsolation? {
        if let given = command.isolateDecoders {
            guard given else { return nil }
        } else if let found = source.find("ISOLATE_DECODERS"), !found.text.isEmpty {
            guard try ServeSettingSource.boolean(found) else { return nil }
        }
        var isolation = DecoderIsolation()
        isolation.helpers = try source.wholeNumber(command.decodeHelpers, flag: "--decode-helpers", "DECODE_HELPERS",
                                                   minimum: 1)
        if let seconds = try source.wholeNumber(command.decodeTimeout, flag: "--decode-timeout", "DECODE_TIMEOUT",
                                                minimum: 1) {
            isolation.timeout = .seconds(seconds)
        }
        if let megabytes = try source.wholeNumber(command.decodeMemoryMB, flag: "--decode-memory-mb",
                                                  "DECODE_MEMORY_MB", minimum: 64) {
            isolation.memoryLimitBytes = megabytes * 1024 * 1024
        }
        return isolation
    }

    /// `HOST:PORT`, `[IPv6]:PORT`; imgproxy's `:PORT` (every interface) when `emptyHostMeansAll`.
    static func address(_ text: String, origin: String = "--bind",
                        emptyHostMeansAll: Bool = false) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port) else {
            throw ServeError("\(origin) \(text): expected HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty, emptyHostMeansAll { host = "0.0.0.0" }
        guard !host.isEmpty else { throw ServeError("\(origin) \(text): the host is empty") }
        return (host, port)
    }

    /// `jpeg=70,avif=40`: a quality (1–100) per format name.
    static func formatQualities(_ list: String, origin: String = "--format-quality") throws -> [OutputFormat: Int] {
        var qualities = [OutputFormat: Int]()
        for pair in list.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = OutputFormat(name: parts[0].lowercased()),
                  let quality = Int(parts[1]), (1...100).contains(quality)
            else { throw ServeError("\(origin) \(pair): expected FORMAT=QUALITY, quality 1-100") }
            qualities[format] = quality
        }
        return qualities
    }

    /// `jpeg,png,gif`: format names, in order.
    static func formats(_ list: String, flagName: String) throws -> [OutputFormat] {
        let formats = try list.split(separator: ",").map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let format = OutputFormat(name: trimmed) else { throw ServeError("\(flagName): unknown format \(trimmed)") }
            return format
        }
        guard !formats.isEmpty else { throw ServeError("\(flagName) names no format") }
        return formats
    }
}

/// A `serve` setting that cannot work.
struct ServeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
