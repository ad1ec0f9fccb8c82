import Foundation

/// An ``ImageRequest`` with everything it leaves open decided: the parts to use (context over manager), the cache
/// keys, the decode options and the key of its final stage.
struct ResolvedImageRequest: Sendable {
    let url: URL
    let request: ImageRequest
    let cache: any ImageCaching
    let originalCache: any ImageCaching
    /// What the load is sent through: the context's loader, else the manager's stage's transport.
    let transport: any Transport
    /// Whether the context names its own loader (which gets the library's request defaults, not a downloader's).
    let hasOwnLoader: Bool
    let coders: ImageCoders
    let transformer: (any ImageTransformer)?
    /// The key of the bytes as loaded.
    let originalKey: String
    /// The key of what is delivered: the original key plus the thumbnail and transformer suffixes.
    let finalKey: String
    /// How to decode the original bytes (thumbnail, scale-down, frames, limits).
    let decodeOptions: DecodeOptions
    /// Set for contexts with hooks that cannot be compared: the load shares no stage with others.
    let unique: Int?
    /// Set for thumbnails: the transfer may end once the bytes are enough for the thumbnail's decode.
    let earlyStop: EarlyStop?
    /// The response modifier and decryptor applied to the loaded response: the context's, else the downloader's.
    let hooks: TransferHooks
    /// The stage the load passes.
    let stage: TransferStage

    var options: ImageOptions { request.options }
    var context: ImageContext { request.context }

    init(url: URL, request: ImageRequest, manager: ImageManager) {
        self.url = url
        self.request = request
        let context = request.context, options = request.options
        cache = context.cache ?? manager.cache
        originalCache = context.originalCache ?? context.cache ?? manager.cache
        stage = manager.stage
        hasOwnLoader = context.loader != nil
        transport = context.loader.map { LoaderTransport(loader: $0) } ?? manager.stage.transport
        // The context's hooks replace the stage's, as they do for the downloader's own downloads: each response
        // passes one response modifier and one decryptor, once. A context's own loader brings no downloader's.
        hooks = hasOwnLoader
            ? TransferHooks(responseModifier: context.download.responseModifier, decryptor: context.download.decryptor)
            : manager.stage.hooks(responseModifier: context.download.responseModifier,
                                  decryptor: context.download.decryptor)
        coders = context.coders ?? manager.coders
        transformer = manager.transformer(for: context)
        let keys = manager.cacheKeys(for: url, context: context, transformer: transformer)
        originalKey = keys.original
        finalKey = keys.final
        var decode = DecodeOptions(
            thumbnailPixelSize: context.thumbnailPixelSize, preserveAspectRatio: context.preserveAspectRatio,
            firstFrameOnly: options.decodesFirstFrameOnly,
            scaleFactor: context.scaleFactor, fileNameHint: keys.original,
            limits: context.decodeLimits ?? manager.configuration.decodeLimits, thumbnailFill: context.thumbnailFill)
        if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = context.scaleDownLimitBytes ?? manager.configuration.defaultScaleDownLimitBytes
        }
        decodeOptions = decode
        let download = context.download
        let hasHooks = download.requestModifier != nil || download.responseModifier != nil
            || download.decryptor != nil || context.cacheSerializer != nil
        unique = hasHooks ? manager.makeUniqueToken() : nil
        // Only a thumbnail, which is cached under a key of its own, may be made from part of the bytes; a
        // decryptor needs the whole body before anything can be read. One identity for every thumbnail, so that
        // thumbnails of several sizes still share their download (a size it stopped too early for reads on).
        let thumbnail = context.thumbnailPixelSize != nil && keys.final != keys.original
        earlyStop = thumbnail && hooks.decryptor == nil
            ? EarlyStop(identity: Self.thumbnailEarlyStop) { [decode] _ in decode } : nil
    }

    /// The identity of the manager's thumbnail early stops (see ``EarlyStop``).
    static let thumbnailEarlyStop = "ImageManager.thumbnail"

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

    /// Whether `data`, decoded for this load, gives less than the whole image: an animation of which only the
    /// first frame is decoded. Such an image is not cached in memory, which holds complete images.
    func isTrimmedAnimation(_ data: Data) -> Bool {
        decodeOptions.firstFrameOnly && ((try? coders.properties(of: data))?.frameCount ?? 1) > 1
    }

    /// The key of the final stage.
    var finalTaskKey: FinalImageTaskKey {
        FinalImageTaskKey(
            finalCacheKey: finalKey, originalCacheKey: originalKey, options: options.sharedBehaviour,
            decodeOptions: decodeOptions,
            cacheTypes: [context.queryCacheType, context.storeCacheType, context.originalQueryCacheType,
                         context.originalStoreCacheType],
            headers: context.download.headers.canonical, credentials: context.download.credentials,
            timeout: context.download.timeout,
            parts: [PartIdentity(cache), PartIdentity(originalCache), transport.identity, PartIdentity(coders)],
            unique: unique)
    }

    /// The request the load sends, with `extraHeaders` (conditional requests) on top: made from the stage's
    /// defaults (a downloader's configuration), or the library's for a context's own loader.
    func loadRequest(extraHeaders: HTTPHeaderFields) throws -> ImageLoadRequest {
        let additions = context.download, downloadOptions = options.downloadOptions
        var request = hasOwnLoader
            ? try ImageDownloaderConfiguration.standard.request(for: url, options: downloadOptions, context: additions)
            : try stage.makeRequest(for: url, options: downloadOptions, context: additions)
        request.headers.merge(extraHeaders)
        request.priority = self.request.priority
        request.earlyStop = earlyStop
        return request
    }
}
