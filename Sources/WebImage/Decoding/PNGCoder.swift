import Foundation

/// PNG through libspng.
///
/// Decoding: every colour type and bit depth (16-bit samples rounded to 8 bits), palettes and colour keys
/// (tRNS), Adam7 interlace, the default image of an APNG (its other frames are not read), orientation from the
/// eXIf chunk. A file must be whole, up to its IEND chunk. Thumbnails are made after a full-size decode.
///
/// Encoding: the first frame as 8-bit RGBA, or RGB when it is fully opaque; lossless.
public struct PNGCoder: SingleFormatImageCoder {
    /// Always ``ImageFormat/png``.
    public let format = ImageFormat.png

    /// Creates the coder; it holds no state.
    public init() {}

    /// Decodes a PNG file (the first frame of an APNG). See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try PNGDecoder.decode(data, options: options)
    }

    /// Encodes the first frame of `image` as PNG, after ``EncodeOptions/maxPixelSize`` is applied.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .png else {
            throw ImageError(.unsupportedFormat, "the PNG coder cannot write \(format.rawValue)")
        }
        return try PNGEncoder.encode(options.fittingMaxPixelSize(image.pixels))
    }
}
