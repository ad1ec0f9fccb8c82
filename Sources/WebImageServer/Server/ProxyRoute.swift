import Foundation
import WebImage

/// What a request asks the proxy for, read from its path alone: one of the operations' endpoints, or an image,
/// checked (signature, options, expiry, format, source policy) before anything is fetched.
enum ProxyRoute: Sendable {
    case health
    case metrics
    case image(RenderRequest)

    /// The route of `request`.
    /// - Throws: ``ProxyError`` 400 for a path or option that cannot be read, 403 for a bad signature or a
    ///   source that is not allowed, 410 for an expired URL.
    init(_ request: ProxyRequest, configuration: ProxyConfiguration, sources: SourcePolicy,
         coders: ImageCoders) throws(ProxyError) {
        switch request.path {
        case "/health": self = .health
        case "/metrics": self = .metrics
        default: self = .image(try Self.image(request, configuration: configuration, sources: sources, coders: coders))
        }
    }

    private static func image(_ request: ProxyRequest, configuration: ProxyConfiguration, sources: SourcePolicy,
                              coders: ImageCoders) throws(ProxyError) -> RenderRequest {
        let path = try ProxyPath(parsing: request.path)
        if let signature = configuration.signature,
           !signature.isValid(path.signature[...], for: path.signedPart[...]) {
            throw ProxyError.forbidden("the signature does not match the URL")
        }
        var options = try ProcessingOptions(segments: path.options, presets: configuration.presets,
                                            onlyPresets: configuration.onlyPresets)
        if let expires = options.expires, Double(expires) < Date().timeIntervalSince1970 {
            throw ProxyError(status: 410, "the URL expired at \(expires)")
        }
        if let name = path.outputExtension {
            guard let format = OutputFormat(name: name) else {
                throw ProxyError.badRequest("extension \"\(name)\" is not one of jpg, png, webp, avif, gif")
            }
            options.format = format
        }
        let url = try sources.check(path.source)
        let negotiated = options.format == nil ? configuration.negotiation.format(forAccept: request.accept) : nil
        let chosen = options.format ?? negotiated
        if let format = chosen, !coders.canEncode(to: format.imageFormat) {
            throw ProxyError.badRequest("this server does not write \(format.rawValue)")
        }
        return RenderRequest(
            source: url, options: options, format: chosen,
            varies: options.format == nil && configuration.negotiation.dependsOnAccept,
            key: "\(path.source)\n\(options.cacheKey)\n\(chosen?.rawValue ?? "source")")
    }
}
