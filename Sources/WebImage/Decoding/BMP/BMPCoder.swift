import Foundation

/// Windows and OS/2 bitmaps, read and written in Swift (no C library).
///
/// **Decoding**: BITMAPCOREHEADER, BITMAPINFOHEADER and its V2–V5 extensions; 1, 2, 4 and 8-bit palettes
/// (the colour count from biClrUsed or 2^bits, never read past the pixel data; indices past the table are
/// black); 16-bit (5-5-5 by default), 24-bit and 32-bit pixels; BI_BITFIELDS and BI_ALPHABITFIELDS masks of any
/// width, scaled to 8 bits; BI_RLE8 and BI_RLE4 with deltas and early ends (unwritten pixels are palette entry
/// 0, as in Pillow: see `BMPRunLengthDecoder`); bottom-up and top-down rows. Embedded JPEG or PNG data, CMYK and
/// OS/2 Huffman bitmaps are `ImageError.Code.unsupportedFormat`.
///
/// **Alpha**: a 32-bit BI_RGB bitmap's fourth byte is padding, so it is opaque, unless its V3–V5 header names
/// an alpha mask: then alpha is used when some pixel's alpha is not zero (a file whose fourth bytes are all
/// zero is opaque, as in browsers). Bit-field bitmaps with an alpha mask have alpha whatever its values.
/// ``Image/hasAlpha`` is set exactly in those two cases (the first only when non-zero alpha is present).
///
/// **Bad input**: sizes, depth, compression, masks, palette and pixel offset are checked from the header
/// before anything is allocated; ``DecodeOptions/limits`` is checked against the declared size; pixel data
/// shorter than the declared size needs is `ImageError.Code.badImageData`. The file header's bfSize is
/// ignored (writers often get it wrong).
///
/// **Encoding**: 24-bit BI_RGB with a BITMAPINFOHEADER for opaque images, 32-bit BGRA (BI_BITFIELDS with a V5
/// header, alpha mask 0xFF000000, sRGB) for images with alpha, bottom-up; lossless, so a decode gives back the
/// same pixels. Only the first frame is written; ``EncodeOptions/maxPixelSize`` applies.
public struct BMPCoder: SingleFormatImageCoder {
    /// Always `ImageFormat.bmp`.
    public let format = ImageFormat.bmp

    /// Creates the coder; it holds no state.
    public init() {}

    /// Decodes a BMP file. See the type's description.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try Self.checkFrameIndex(options)
        let (pixels, hasAlpha) = try data.withUnsafeBytes { bytes in
            let header = try BMPHeader.parseFile(bytes)
            try options.limits.check(header.size)
            return try Self.decodePixels(header, from: bytes)
        }
        let (finished, reduced) = try options.finish(pixels, sourceSize: pixels.size, orientation: .up)
        var flags: Image.Flags = hasAlpha ? .hasAlpha : []
        if reduced { flags.insert(.thumbnail) }
        return Image(frames: [ImageFrame(pixels: finished)], format: .bmp, scale: options.resolvedScale, flags: flags)
    }

    /// Size and alpha from the headers. The pixel data is not decoded; its length is checked against the
    /// declared size (as a decode would), and for a 32-bit BI_RGB bitmap with a V3–V5 alpha mask, the alpha bytes
    /// are scanned (no allocation) to tell real alpha from zero padding.
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            let header = try BMPHeader.parseFile(bytes)
            var hasAlpha = header.alpha == .declared
            if header.compression == .none {
                let available = bytes.count - header.pixelOffset
                guard available >= header.uncompressedByteCount else {
                    throw ImageError(.badImageData, "BMP: \(available) bytes of pixel data, "
                        + "\(header.uncompressedByteCount) needed")
                }
                if header.alpha == .whenNonZero { hasAlpha = Self.hasNonZeroAlpha(header, in: bytes) }
            }
            return ImageProperties(format: .bmp, size: header.size, hasAlpha: hasAlpha)
        }
    }

    /// Encodes the first frame as BMP. See the type's description.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .bmp else {
            throw ImageError(.unsupportedFormat, "the BMP coder cannot write \(format.rawValue)")
        }
        let pixels = try options.fittingMaxPixelSize(image.pixels)
        return try BMPEncoder.encode(pixels, withAlpha: image.hasAlpha || pixels.containsTransparency)
    }

    /// The RGBA pixels of a parsed bitmap, and whether the result has alpha (see the type's description).
    static func decodePixels(_ header: BMPHeader, from bytes: UnsafeRawBufferPointer) throws
        -> (PixelBuffer, Bool)
    {
        var sawNonZeroAlpha = false
        let pixels = try PixelBuffer(width: header.width, height: header.height) { destination in
            switch header.compression {
            case .none: sawNonZeroAlpha = try BMPPixelUnpacker.write(header, from: bytes, into: destination)
            case .rle8, .rle4: try BMPRunLengthDecoder.write(header, from: bytes, into: destination)
            }
        }
        let hasAlpha = switch header.alpha {
        case .opaque: false
        case .declared: true
        case .whenNonZero: sawNonZeroAlpha
        }
        return (pixels, hasAlpha)
    }

    /// Whether any pixel of an uncompressed 32-bit bitmap has a non-zero value under the alpha mask.
    static func hasNonZeroAlpha(_ header: BMPHeader, in bytes: UnsafeRawBufferPointer) -> Bool {
        let alpha = header.masks.alpha.mask
        for row in 0..<header.height {
            let start = header.pixelOffset + row * header.rowStride
            for x in 0..<header.width where bytes.bmpUInt32(at: start + x * 4) & alpha != 0 { return true }
        }
        return false
    }

    /// A bitmap file holds one image: frame 0 is all there is.
    static func checkFrameIndex(_ options: DecodeOptions) throws {
        if let index = options.frameIndex, index != 0 {
            throw ImageError(.invalidParameter, "frame \(index) asked of an image with one frame")
        }
    }
}
