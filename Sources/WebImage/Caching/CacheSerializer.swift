import Foundation

/// Decides which bytes go to disk for an image being stored (SDWebImage's `SDWebImageCacheSerializer`), for
/// example to store a re-encoded WebP instead of the downloaded JPEG, or nothing at all: a closure, or
/// ``default``.
public struct CacheSerializer: Sendable {
    private let body: @Sendable (Image?, Data?, String, ImageCoders) throws -> Data?

    /// A serializer that asks `body` with the parameters of ``diskData(for:originalData:forKey:coders:)``.
    public init(_ body: @escaping @Sendable (_ image: Image?, _ originalData: Data?, _ key: String,
                                             _ coders: ImageCoders) throws -> Data?) {
        self.body = body
    }

    /// The bytes to write for `image` (`nil` when only data is stored) whose original encoded bytes are
    /// `originalData` (`nil` for an image made in memory, e.g. after a transform); `nil` skips the disk.
    /// `coders` is the load's coder registry, for encoding.
    public func diskData(for image: Image?, originalData: Data?, forKey key: String, coders: ImageCoders) throws -> Data? {
        try body(image, originalData, key, coders)
    }

    /// The original bytes when there are some; otherwise the image encoded losslessly as PNG (APNG when
    /// animated, 16 bits a sample when it keeps deep samples), so that a transformed image read back from the disk
    /// has exactly the pixels it was stored with. SDWebImage stores such images as JPEG (GIF when animated),
    /// which makes an answer from the disk differ from the first; a serializer of your own can still choose a
    /// smaller lossy format.
    public static let `default` = CacheSerializer.default(encodeOptions: EncodeOptions())

    /// ``default`` with `encodeOptions` for the encoder, when an image has no original bytes.
    public static func `default`(encodeOptions: EncodeOptions) -> CacheSerializer {
        CacheSerializer { image, originalData, _, coders in
            if let originalData, !originalData.isEmpty { return originalData }
            guard let image else { return nil }
            return try coders.encode(image, as: storageFormat(for: image), options: encodeOptions)
        }
    }

    /// The format ``default`` stores an image without original bytes in: PNG, whatever the image.
    public static func storageFormat(for image: Image) -> ImageFormat { .png }
}
