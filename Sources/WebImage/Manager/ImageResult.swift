import Foundation

/// What a load delivers.
public struct ImageResult: Sendable {
    /// The image: decoded, thumbnailed and transformed as asked.
    public var image: Image
    /// The encoded bytes. With ``ImageContext/resultEncoding``: the delivered image in that encoding, on every
    /// delivery (miss, memory hit, disk hit) the same bytes. Otherwise the download's (or the disk entry's) when
    /// they were asked for (``ImageOptions/queryMemoryData``), came along anyway (a download, a disk hit), or
    /// ``ImageOptions/avoidDecodeImage`` kept frames undecoded; `nil` for a memory hit without
    /// ``ImageOptions/queryMemoryData``, and for a thumbnail whose download stopped early (<doc:LoadingImages>).
    public var data: Data?
    /// Where the image came from: ``ImageCacheType/none`` (loaded), ``ImageCacheType/memory`` or
    /// ``ImageCacheType/disk``.
    public var cacheType: ImageCacheType
    /// The URL asked for.
    public var url: URL
    /// The cached entry's HTTP validators, carried from a cache hit to its revalidation.
    var validators: HTTPValidators?

    /// Creates a result.
    public init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }

    init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL, validators: HTTPValidators?) {
        self.init(image: image, data: data, cacheType: cacheType, url: url)
        self.validators = validators
    }
}

/// What an ``ImageTask`` reports while it runs, in order; ``finished(_:)`` comes last.
public enum ImageTaskEvent: Sendable {
    /// Body bytes received so far, and the announced total when known.
    case progress(received: Int64, expected: Int64?)
    /// A partial image decoded from the bytes so far (``ImageOptions/progressiveLoad``), flagged
    /// ``Image/Flags/incremental``.
    case preview(Image)
    /// The load succeeded.
    case finished(ImageResult)
}

/// Receives a load's result when it is not awaited.
package typealias ImageCompletion = @Sendable (Result<ImageResult, ImageError>) -> Void
