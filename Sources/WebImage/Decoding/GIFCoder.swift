import Foundation

/// Placeholder until the GIF coder lands.
public struct GIFCoder: SingleFormatImageCoder {
    public let format = ImageFormat.gif
    public init() {}
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw ImageError(.unsupportedFormat, "GIF decoding is not built yet")
    }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "GIF encoding is not built yet")
    }
}
