import Foundation

/// Placeholder until the PNG coder lands.
public struct PNGCoder: SingleFormatImageCoder {
    public let format = ImageFormat.png
    public init() {}
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw ImageError(.unsupportedFormat, "PNG decoding is not built yet")
    }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "PNG encoding is not built yet")
    }
}
