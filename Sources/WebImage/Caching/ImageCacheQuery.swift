import Foundation

/// What a cache query asks for beyond the image.
public struct ImageCacheQueryOptions: Sendable, Hashable {
    /// Also return the stored bytes. For a memory hit they are read from disk as well (SDWebImage's
    /// `queryMemoryData`); they are `nil` when the disk has no entry.
    public var includeData: Bool
    /// Return a disk hit as bytes only, without decoding it (nor putting it in memory).
    public var skipDecoding: Bool
    /// Put an image decoded from a disk hit into the memory cache (on by default).
    public var fillsMemory: Bool
    /// How to decode a disk hit. When it names neither a scale factor nor a file name, the key is used as the
    /// file name, so `@2x` in a key gives a scale of 2.
    public var decodeOptions: DecodeOptions

    /// Creates options; by default only the image is returned and a disk hit fills the memory cache.
    public init(
        includeData: Bool = false, skipDecoding: Bool = false, fillsMemory: Bool = true,
        decodeOptions: DecodeOptions = DecodeOptions()
    ) {
        self.includeData = includeData
        self.skipDecoding = skipDecoding
        self.fillsMemory = fillsMemory
        self.decodeOptions = decodeOptions
    }
}

/// A cache hit.
public struct ImageCacheResult: Sendable {
    /// The image; `nil` only when the query asked to skip decoding.
    public var image: Image?
    /// The stored bytes, when the query asked for them (or skipped decoding) and the disk had them.
    public var data: Data?
    /// Where the image was found: ``ImageCacheType/memory`` or ``ImageCacheType/disk``.
    public var cacheType: ImageCacheType
    /// The disk entry's metadata (validators, times) whenever the disk entry was read.
    public var metadata: CacheEntryMetadata?

    /// Creates a result.
    public init(image: Image?, data: Data?, cacheType: ImageCacheType, metadata: CacheEntryMetadata? = nil) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.metadata = metadata
    }
}
