import Foundation
import WebImage

/// Placeholder while the SVG coder is written; replaced in the same change.
public struct SVGCoder: SingleFormatImageCoder {
    public init() {}
    public var format: ImageFormat { .svg }
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw ImageError(.unsupportedFormat, "not yet")
    }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw ImageError(.unsupportedFormat, "not yet")
    }
}
