import Foundation

/// Everything one load resolved before it starts: the parts to use (context over manager), the cache keys and
/// the decode options.
struct LoadPlan: Sendable {
    let url: URL
    let options: ImageOptions
    let context: ImageContext
    let cache: any ImageCaching
    let originalCache: any ImageCaching
    let loader: any ImageLoader
    let coders: ImageCoders
    let transformer: (any ImageTransformer)?
    /// The key of the bytes as loaded.
    let originalKey: String
    /// The key of what is delivered: the original key plus the thumbnail and transformer suffixes.
    let finalKey: String
    /// How to decode the original bytes (thumbnail, scale-down, frames, limits).
    let decodeOptions: DecodeOptions
    /// Loads with equal sharing keys may share one job; `nil` when the context holds hooks or plugins.
    let sharingKey: String?

    init(url: URL, options: ImageOptions, context: ImageContext, manager: ImageManager) {
        self.url = url
        self.options = options
        self.context = context
        cache = context.cache ?? manager.cache
        originalCache = context.originalCache ?? context.cache ?? manager.cache
        loader = context.loader ?? manager.loader
        coders = context.coders ?? manager.coders
        switch context.transformer {
        case .managerDefault: transformer = manager.configuration.defaultTransformer
        case .none: transformer = nil
        case .transformer(let given): transformer = given
        }
        let keys = manager.cacheKeys(for: url, context: context, transformer: transformer)
        originalKey = keys.original
        finalKey = keys.final

        var decode = DecodeOptions(
            thumbnailPixelSize: context.thumbnailPixelSize, preserveAspectRatio: context.preserveAspectRatio,
            firstFrameOnly: options.contains(.decodeFirstFrameOnly)
                || (options.contains(.avoidDecodeImage) && !options.contains(.preloadAllFrames)),
            scaleFactor: context.scaleFactor, fileNameHint: keys.original,
            limits: context.decodeLimits ?? manager.configuration.decodeLimits)
        if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = context.scaleDownLimitBytes ?? manager.configuration.defaultScaleDownLimitBytes
        }
        decodeOptions = decode
        sharingKey = context.isShareable
            ? "\(finalKey)\n\(options.sharingSignature)\n\(context.sharingSignature)" : nil
    }

    /// Whether the delivered image differs from the loaded one (a thumbnail or a transform), so the original
    /// and the result are cached under different keys.
    var hasDerivedKey: Bool { finalKey != originalKey }

    /// How to decode a cached final image: when it is a product (thumbnail or transform), as it is; when it is
    /// the original, like freshly loaded bytes.
    var cachedDecodeOptions: DecodeOptions {
        guard hasDerivedKey else { return decodeOptions }
        var options = decodeOptions
        options.thumbnailPixelSize = nil
        options.scaleDownLimitBytes = nil
        options.fileNameHint = finalKey
        return options
    }

    /// The downloader context for this load, with `extraHeaders` (conditional requests) on top.
    func downloadContext(extraHeaders: HTTPHeaderFields = HTTPHeaderFields()) -> DownloadContext {
        var headers = context.headers
        headers.merge(extraHeaders)
        return DownloadContext(headers: headers, credentials: context.credentials,
                               requestModifier: context.requestModifier, responseModifier: context.responseModifier,
                               decryptor: context.decryptor, timeout: context.timeout)
    }
}
