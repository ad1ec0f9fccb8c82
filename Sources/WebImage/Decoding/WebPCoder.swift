import Foundation

/// Placeholder until the WebP coder lands.
public struct WebPCoder: SingleFormatImageCoder {
    public let format = ImageFormat.webp
    public init() {}
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw ImageError(.unsupportedFormat, "WebP decoding is not built yet")
    }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "WebP encoding is not built yet")
    }
}
