import Foundation
import WebImage

/// What a request asks the proxy for, read from its path alone: one of the operations' endpoints, or an image,
/// checked (signature, options, expiry, format, source policy) before anything is fetched.
enum ProxyRoute: Sendable {
    case health
    case metrics
    case image(RenderRequest)
    /// `/info/SIGNATURE/OPTIONS/SOURCE`: what the source is, as JSON.
    case info(InfoRequest)

    /// The route of `request`; an image route from `recent` when it read the same one lately.
    /// - Throws: ``ProxyError`` as imgproxy answers: 404 for a path, option or preset that cannot be read, an
    ///   expired URL or a source that is not allowed; 403 for a bad signature or a security option the server does
    ///   not allow; 422 for an output format this server cannot write.
    /// - Parameter watermark: the identity of the watermark the server draws (``ProxyWatermark``), once loaded.
    init(_ request: ProxyRequest, configuration: ProxyConfiguration, sources: SourcePolicy, coders: ImageCoders,
         watermark: String? = nil, recent: RecentRoutes? = nil) throws(ProxyError) {
        switch request.path {
        case "/health": self = .health
        case "/metrics": self = .metrics
        case _ where request.path.hasPrefix("/info/"):
            self = .info(try Self.info(request, configuration: configuration, sources: sources))
        default:
            // Looked up and kept here rather than through a closure that reads a missing route: capturing the
            // configuration copied it on every hit of a hot URL.
            if let recent = recent?.recent(for: request) {
                self = .image(recent)
            } else {
                let route = try Self.image(request, configuration: configuration, sources: sources, coders: coders,
                                           watermark: watermark)
                recent?.keep(route, for: request)
                self = .image(route)
            }
        }
    }

    private static func image(_ request: ProxyRequest, configuration: ProxyConfiguration, sources: SourcePolicy,
                              coders: ImageCoders, watermark: String?) throws(ProxyError) -> RenderRequest {
        let path = try signedPath(request.path, onlyPresets: configuration.onlyPresets, configuration: configuration)
        let hints = configuration.readsClientHints ? request.clientHints : ClientHints()
        var options = try ProcessingOptions(segments: path.options, rules: configuration.parsingRules,
                                            clientHints: hints)
        if let expires = options.expires, Double(expires) < Date().timeIntervalSince1970 {
            throw ProxyError.invalidURL("the URL expired at \(expires)")
        }
        if let name = path.outputExtension, !options.raw {
            if name == "best" {
                (options.format, options.bestFormat) = (nil, true)
            } else {
                guard let format = OutputFormat(name: name) else {
                    throw ProxyError.invalidURL("extension \"\(name)\" is not a format this server knows")
                }
                (options.format, options.bestFormat) = (format, false)
            }
        }
        if configuration.bestFormat.byDefault, options.format == nil, !options.raw { options.bestFormat = true }
        // Rewritten first, then checked (imgproxy's order); the key names the source actually fetched.
        let source = configuration.sourceURLRewriting.resolve(path.source)
        let url = try sources.check(source)
        let accepted = configuration.negotiation.formats(forAccept: request.accept)
        let best = options.bestFormat ? BestFormatSettings.candidates(
            preferred: configuration.preferredFormats, accepted: accepted, coders: coders) : nil
        let chosen = best != nil ? nil : options.format ?? accepted.first
        // An SVG answer depends on the source (only an SVG source has one): decided once it is known.
        if let format = chosen, format != .svg, !coders.canEncode(to: format.imageFormat) {
            throw ProxyError(status: 422, "this server cannot write \(format.rawValue)")
        }
        var vary: [String] = []
        // As imgproxy: once the server negotiates, every answer says so, whatever the URL names.
        if configuration.negotiation.dependsOnAccept { vary.append("Accept") }
        if configuration.readsClientHints { vary += ClientHints.varyHeaderNames }
        let output = best.map { "best:" + $0.map(\.rawValue).joined(separator: ",") }
        return RenderRequest(
            source: url, options: options, format: chosen, vary: vary.isEmpty ? nil : vary.joined(separator: ", "),
            key: "\(source)\n\(options.cacheKey)\n\(output ?? chosen?.rawValue ?? "source")"
                + serverSettingsKey(options, format: chosen, configuration: configuration, watermark: watermark),
            bestFormats: best)
    }

    /// `/info/…`: the path after `/info` is read and signed as an image path is, with info options.
    private static func info(_ request: ProxyRequest, configuration: ProxyConfiguration, sources: SourcePolicy)
        throws(ProxyError) -> InfoRequest
    {
        let rules = configuration.infoParsingRules
        let path = try signedPath(String(request.path.dropFirst("/info".count)), onlyPresets: rules.onlyPresets,
                                  configuration: configuration)
        let options = try InfoOptions(segments: path.options, rules: rules)
        if let expires = options.expires, Double(expires) < Date().timeIntervalSince1970 {
            throw ProxyError.invalidURL("the URL expired at \(expires)")
        }
        // An extension names an output format, which an answer in JSON does not have: it is ignored.
        let source = configuration.sourceURLRewriting.resolve(path.source)
        return InfoRequest(source: try sources.check(source), options: options)
    }

    /// `path` taken apart, its signature checked.
    private static func signedPath(_ path: String, onlyPresets: Bool, configuration: ProxyConfiguration)
        throws(ProxyError) -> ProxyPath
    {
        let path = try ProxyPath(parsing: path, onlyPresets: onlyPresets)
        if let signature = configuration.signature {
            guard signature.isValid(path.signature[...], for: path.signedPart[...]) else {
                throw ProxyError.forbidden("the signature does not match the URL")
            }
        } else if path.signature.utf8.contains(UInt8(ascii: ":")) {
            // Without a key any signature passes, but a path that starts with an option has none at all.
            throw ProxyError.forbidden("the signature segment is missing: the path starts with an option")
        }
        return path
    }

    /// The server settings that change this request's result, for its cache key: results outlive a restart with
    /// other settings (on disk), and Redis shares them between servers, so two servers whose settings would make
    /// other bytes must never find each other's results. A setting at its default adds nothing, so keys made
    /// before it existed still match. Options that settle a setting at parsing (metadata, copyright, thumbnails,
    /// HDR) are in the options' own key.
    static func serverSettingsKey(_ options: ProcessingOptions, format chosen: OutputFormat?,
                                  configuration: ProxyConfiguration, watermark: String?) -> String {
        var key = ""
        let defaults = ProxyConfiguration.renderingDefaults
        // The URL's quality wins over both; with none, the server's decide (imgproxy's order).
        if options.quality == 0 {
            if configuration.quality != defaults.quality { key += "\nq:\(configuration.quality)" }
            if configuration.formatQuality != defaults.formatQuality {
                key += "\nfq:" + configuration.formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
            }
        }
        // Without a format from the URL or `Accept`, the source's format is kept only when it is preferred.
        if chosen == nil, configuration.preferredFormats != defaults.preferredFormats {
            key += "\npf:" + configuration.preferredFormats.map(\.rawValue).joined(separator: ",")
        }
        if options.watermark != nil {
            // The watermark's identity covers its pixels and its opacity; before one is loaded, the opacity alone.
            if let watermark {
                key += "\nwm:\(watermark)"
            } else if configuration.watermarkOpacity != 1 {
                key += "\nwmo:\(configuration.watermarkOpacity)"
            }
        }
        if configuration.autoquality != defaults.autoquality { key += "\naq:" + configuration.autoquality.cacheKey }
        if configuration.bestFormat != defaults.bestFormat, options.bestFormat {
            key += "\nbest" + configuration.bestFormat.cacheKey
        }
        // Only an SVG source without a format in the URL is answered differently.
        if options.format == nil, configuration.alwaysRasterizesSVG { key += "\nrsvg" }
        return key
    }
}
