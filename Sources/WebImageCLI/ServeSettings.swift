import Foundation
import WebImage
import WebImageRedis
import WebImageServer

/// `webimage serve`'s flags merged with their `WEBIMAGE_…` variables (the flag wins) and checked, before the
/// server starts: every mistake is one line and a non-zero exit, never a server that half works.
struct ServeSettings {
    let command: ServeCommand
    let environment: [String: String]

    func configuration() throws -> ProxyConfiguration {
        var configuration = ProxyConfiguration()
        (configuration.host, configuration.port) = try Self.address(
            command.bind ?? environment["WEBIMAGE_BIND"] ?? "127.0.0.1:8080")
        let key = command.key ?? environment["WEBIMAGE_KEY"], salt = command.salt ?? environment["WEBIMAGE_SALT"]
        let insecure = try flag(command.insecure, "INSECURE")
        switch (key, salt) {
        case let (key?, salt?):
            configuration.signature = try URLSignature(keyHex: key, saltHex: salt)
        case (nil, nil):
            guard insecure else {
                throw ServeError("no --key and --salt: give both, or --insecure to accept unsigned URLs")
            }
        default:
            throw ServeError("--key and --salt go together: give both")
        }
        configuration.allowsLoopbackSources = try flag(command.allowLoopbackSources, "ALLOW_LOOPBACK_SOURCES")
        configuration.allowedSourcePrefixes = command.allowSource.isEmpty
            ? (environment["WEBIMAGE_ALLOW_SOURCE"] ?? "").split(separator: ",").map(String.init)
            : command.allowSource
        if let text = command.dnsServer ?? environment["WEBIMAGE_DNS_SERVER"] {
            guard let server = NameServer(text) else {
                throw ServeError("--dns-server \(text): expected ADDRESS:PORT with an IP address")
            }
            configuration.nameServer = server
        }
        if let folder = command.cacheDirectory ?? environment["WEBIMAGE_CACHE_DIR"] {
            configuration.cacheDirectory = URL(fileURLWithPath: folder, isDirectory: true)
        }
        if let url = command.redis ?? environment["WEBIMAGE_REDIS"] {
            do {
                configuration.redis = try RedisConfiguration(url: url)
            } catch {
                throw ServeError("--redis: \(error)")
            }
        }
        if let megabytes = try number(command.memoryMB, "MEMORY_MB", "--memory-mb", minimum: 1) {
            configuration.memoryBytes = megabytes * 1024 * 1024
        }
        if let workers = try number(command.workers, "WORKERS", "--workers", minimum: 1) {
            configuration.workers = workers
        }
        if let queue = try number(command.queue, "QUEUE", "--queue", minimum: 0) { configuration.queueLimit = queue }
        configuration.negotiation = FormatNegotiation(offersAVIF: try flag(command.autoAVIF, "AUTO_AVIF"),
                                                      offersWebP: try flag(command.autoWebP, "AUTO_WEBP"))
        if let pixels = try number(command.maxSourcePixels, "MAX_SRC_PIXELS", "--max-src-pixels", minimum: 1) {
            configuration.maximumSourcePixels = pixels
        }
        if let bytes = try number(command.maxSourceBytes, "MAX_SRC_BYTES", "--max-src-bytes", minimum: 1) {
            configuration.maximumSourceBytes = bytes
        }
        if let pixels = try number(command.maxAnimationPixels, "MAX_ANIMATION_PIXELS", "--max-animation-pixels",
                                   minimum: 1) {
            configuration.maximumAnimationPixels = pixels
        }
        if let ttl = try number(command.ttl, "TTL", "--ttl", minimum: 0) { configuration.timeToLive = ttl }
        if let file = command.presets ?? environment["WEBIMAGE_PRESETS"] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ServeError("cannot read the presets file \(file)")
            }
            configuration.presets = try ProxyPresets(fileContents: text)
        }
        configuration.onlyPresets = try flag(command.onlyPresets, "ONLY_PRESETS")
        configuration.allowsSecurityOptions = try flag(command.allowSecurityOptions, "ALLOW_SECURITY_OPTIONS")
        configuration.stripsMetadata = try !flag(command.keepMetadata, "KEEP_METADATA")
        configuration.keepsCopyright = try !flag(command.stripCopyright, "STRIP_COPYRIGHT")
        if let list = command.allowedOptions ?? environment["WEBIMAGE_ALLOWED_OPTIONS"] {
            configuration.allowedOptions = Set(list.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty })
        }
        if let quality = try number(command.quality, "QUALITY", "--quality", minimum: 1) {
            guard quality <= 100 else { throw ServeError("--quality must be at most 100, not \(quality)") }
            configuration.quality = quality
        }
        if let list = command.formatQuality ?? environment["WEBIMAGE_FORMAT_QUALITY"] {
            configuration.formatQuality = try Self.formatQualities(list)
        }
        if let list = command.preferredFormats ?? environment["WEBIMAGE_PREFERRED_FORMATS"] {
            configuration.preferredFormats = try Self.formats(list, flagName: "--preferred-formats")
        }
        configuration.watermarkPath = command.watermarkPath ?? environment["WEBIMAGE_WATERMARK_PATH"]
        if let text = command.watermarkURL ?? environment["WEBIMAGE_WATERMARK_URL"] {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ServeError("--watermark-url \(text): expected an http or https URL")
            }
            configuration.watermarkURL = url
        }
        if let text = command.watermarkOpacity.map({ String($0) }) ?? environment["WEBIMAGE_WATERMARK_OPACITY"] {
            guard let opacity = Double(text), opacity > 0, opacity <= 1 else {
                throw ServeError("--watermark-opacity \(text): expected a number above 0 and at most 1")
            }
            configuration.watermarkOpacity = opacity
        }
        configuration.readsClientHints = try flag(command.enableClientHints, "ENABLE_CLIENT_HINTS")
        configuration.alwaysRasterizesSVG = try flag(command.alwaysRasterizeSVG, "ALWAYS_RASTERIZE_SVG")
        configuration.enforcesThumbnail = try flag(command.enforceThumbnail, "ENFORCE_THUMBNAIL")
        configuration.preservesHDR = try flag(command.preserveHDR, "PRESERVE_HDR")
        if let seconds = try number(command.downloadTimeout, "DOWNLOAD_TIMEOUT", "--download-timeout", minimum: 1) {
            configuration.downloadTimeout = .seconds(seconds)
        }
        if let seconds = try number(command.requestTimeout, "REQUEST_TIMEOUT", "--request-timeout", minimum: 1) {
            configuration.requestTimeout = .seconds(seconds)
        }
        if let seconds = try number(command.headerTimeout, "HEADER_TIMEOUT", "--header-timeout", minimum: 1) {
            configuration.headerTimeout = .seconds(seconds)
        }
        if let seconds = try number(command.idleTimeout, "IDLE_TIMEOUT", "--idle-timeout", minimum: 1) {
            configuration.idleTimeout = .seconds(seconds)
        }
        if let downloads = try number(command.maxDownloads, "MAX_DOWNLOADS", "--max-downloads", minimum: 1) {
            configuration.maximumDownloads = downloads
        }
        if let downloads = try number(command.maxDownloadsPerOrigin, "MAX_DOWNLOADS_PER_ORIGIN",
                                      "--max-downloads-per-origin", minimum: 1) {
            configuration.maximumDownloadsPerOrigin = downloads
        }
        if let megabytes = try number(command.sourceCacheMB, "SOURCE_CACHE_MB", "--source-cache-mb", minimum: 0) {
            configuration.sourceCacheBytes = megabytes * 1024 * 1024
        }
        if let megabytes = try number(command.sourceMemoryMB, "SOURCE_MEMORY_MB", "--source-memory-mb", minimum: 0) {
            configuration.sourceMemoryBytes = megabytes * 1024 * 1024
        }
        if let megabytes = try number(command.resultCacheMB, "RESULT_CACHE_MB", "--result-cache-mb", minimum: 0) {
            configuration.resultCacheBytes = megabytes * 1024 * 1024
        }
        return configuration
    }

    /// Decoder isolation, on unless `--no-isolate-decoders` (or `WEBIMAGE_ISOLATE_DECODERS=0`) turns it off.
    func decoderIsolation() throws -> DecoderIsolation? {
        if let given = command.isolateDecoders {
            guard given else { return nil }
        } else if let value = environment["WEBIMAGE_ISOLATE_DECODERS"] {
            switch value.lowercased() {
            case "1", "true", "yes", "on", "": break
            case "0", "false", "no", "off": return nil
            default: throw ServeError("WEBIMAGE_ISOLATE_DECODERS=\(value): expected 1, true, yes, 0, false or no")
            }
        }
        var isolation = DecoderIsolation()
        isolation.helpers = try number(command.decodeHelpers, "DECODE_HELPERS", "--decode-helpers", minimum: 1)
        if let seconds = try number(command.decodeTimeout, "DECODE_TIMEOUT", "--decode-timeout", minimum: 1) {
            isolation.timeout = .seconds(seconds)
        }
        if let megabytes = try number(command.decodeMemoryMB, "DECODE_MEMORY_MB", "--decode-memory-mb", minimum: 64) {
            isolation.memoryLimitBytes = megabytes * 1024 * 1024
        }
        return isolation
    }

    /// `HOST:PORT`, `[IPv6]:PORT`.
    static func address(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65_535).contains(port) else {
            throw ServeError("--bind \(text): expected HOST:PORT")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ServeError("--bind \(text): the host is empty") }
        return (host, port)
    }

    /// `jpeg=70,avif=40`: a quality (1–100) per format name.
    static func formatQualities(_ list: String) throws -> [OutputFormat: Int] {
        var qualities = [OutputFormat: Int]()
        for pair in list.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = OutputFormat(name: parts[0].lowercased()),
                  let quality = Int(parts[1]), (1...100).contains(quality)
            else { throw ServeError("--format-quality \(pair): expected FORMAT=QUALITY, quality 1-100") }
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

    private func flag(_ given: Bool, _ name: String) throws -> Bool {
        if given { return true }
        guard let value = environment["WEBIMAGE_\(name)"] else { return false }
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: throw ServeError("WEBIMAGE_\(name)=\(value): expected 1, true, yes, 0, false or no")
        }
    }

    private func number(_ given: Int?, _ name: String, _ flagName: String, minimum: Int) throws -> Int? {
        let value: Int
        if let given {
            value = given
        } else if let text = environment["WEBIMAGE_\(name)"] {
            guard let parsed = Int(text) else { throw ServeError("WEBIMAGE_\(name)=\(text): expected a whole number") }
            value = parsed
        } else {
            return nil
        }
        guard value >= minimum else { throw ServeError("\(flagName) must be at least \(minimum), not \(value)") }
        return value
    }
}

/// A `serve` setting that cannot work.
struct ServeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
