import Foundation

/// Placeholder until the JPEG coder lands.
public struct JPEGCoder: SingleFormatImageCoder {
    public let format = ImageFormat.jpeg
    public init() {}
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw ImageError(.unsupportedFormat, "JPEG decoding is not built yet")
    }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "JPEG encoding is not built yet")
    }
}
