import Foundation

/// Decides which bytes go to disk for an image being stored (SDWebImage's `SDWebImageCacheSerializer`), for
/// example to store a re-encoded WebP instead of the downloaded JPEG, or nothing at all.
public protocol CacheSerializer: Sendable {
    /// The bytes to write for `image` (`nil` when only data is stored) whose original encoded bytes are
    /// `originalData` (`nil` for an image made in memory, e.g. after a transform). Return `nil` to skip the
    /// disk. `coders` is the load's coder registry, for encoding.
    func diskData(for image: Image?, originalData: Data?, forKey key: String, coders: ImageCoders) throws -> Data?
}

/// The default: the original bytes when there are some; otherwise the image encoded losslessly as PNG (APNG
/// when animated, 16 bits a sample when it keeps deep samples), so that a transformed image read back from the
/// disk has exactly the pixels it was stored with. SDWebImage stores such images as JPEG (GIF when animated),
/// which makes an answer from the disk differ from the first; a ``ClosureCacheSerializer`` can still choose a
/// smaller lossy format.
public struct DefaultCacheSerializer: CacheSerializer {
    /// Options for the encoders, when an image has no original bytes.
    public var encodeOptions: EncodeOptions

    /// Creates the default serializer.
    public init(encodeOptions: EncodeOptions = EncodeOptions()) {
        self.encodeOptions = encodeOptions
    }

    /// The format an image without original bytes is stored in: PNG, whatever the image.
    public static func storageFormat(for image: Image) -> ImageFormat { .png }

    public func diskData(for image: Image?, originalData: Data?, forKey key: String, coders: ImageCoders) throws -> Data? {
        if let originalData, !originalData.isEmpty { return originalData }
        guard let image else { return nil }
        return try coders.encode(image, as: Self.storageFormat(for: image), options: encodeOptions)
    }
}

/// A serializer made from a closure with the same parameters as ``CacheSerializer/diskData(for:originalData:forKey:coders:)``.
public struct ClosureCacheSerializer: CacheSerializer {
    private let body: @Sendable (Image?, Data?, String, ImageCoders) throws -> Data?

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (Image?, Data?, String, ImageCoders) throws -> Data?) {
        self.body = body
    }

    public func diskData(for image: Image?, originalData: Data?, forKey key: String, coders: ImageCoders) throws -> Data? {
        try body(image, originalData, key, coders)
    }
}
