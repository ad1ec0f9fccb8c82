/// Everything needed to read the pixels of a device-independent bitmap, parsed from a BMP file's headers or from
/// the DIB of an ICO entry, and checked for consistency before any pixel memory is allocated.
///
/// Supported info headers: BITMAPCOREHEADER (12 bytes, OS/2 1.x), BITMAPINFOHEADER (40), its V2 and V3 extensions
/// (52 and 56: the masks inside the header), OS/2 2.x (64, read as its first 40 bytes), V4 (108) and V5 (124).
struct BMPHeader: Sendable {
    /// How the pixel array is stored.
    enum Compression: Sendable, Hashable {
        /// Uncompressed rows: palette indices (1, 2, 4, 8 bits), or pixels read through ``BMPHeader/masks``.
        case none
        /// 8-bit palette indices, run-length encoded.
        case rle8
        /// 4-bit palette indices, run-length encoded.
        case rle4
    }

    /// Where alpha comes from.
    enum AlphaRule: Sendable, Hashable {
        /// No alpha channel: every pixel is opaque.
        case opaque
        /// BI_BITFIELDS or BI_ALPHABITFIELDS with an alpha mask: the channel is real, whatever its values.
        case declared
        /// A 32-bit BI_RGB bitmap whose V3–V5 header names an alpha mask. The spec says BI_RGB ignores masks, and
        /// many writers leave the fourth byte 0: the alpha is used only when some pixel's alpha is not zero
        /// (the rule browsers follow); otherwise the image is opaque.
        case whenNonZero
    }

    /// Size in bytes of the info header.
    let infoSize: Int
    /// Width in pixels (positive).
    let width: Int
    /// Height in pixels (positive; the XOR bitmap's height for an icon entry).
    let height: Int
    /// Rows are stored top row first (a negative height in the header).
    let isTopDown: Bool
    /// 1, 2, 4, 8, 16, 24 or 32.
    let bitsPerPixel: Int
    let compression: Compression
    /// Channel masks of 16-, 24- and 32-bit pixels.
    var masks: BMPChannelMasks
    var alpha: AlphaRule
    /// The colour table of indexed bitmaps (at most 2^bitsPerPixel entries; may be shorter than the indices
    /// need: missing entries read as opaque black).
    let palette: [RGBA]
    /// Offset of the pixel array in the bytes the header was parsed from.
    let pixelOffset: Int

    /// Width and height.
    var size: PixelSize { PixelSize(width: width, height: height) }
    /// Bytes per stored row, padded to 4 bytes.
    var rowStride: Int { (width * bitsPerPixel + 31) / 32 * 4 }
    /// Bytes of pixel data an uncompressed bitmap needs: whole rows, except that the last row's padding may
    /// be missing (some writers stop at the last pixel).
    /// Saturates at `Int.max` for sizes no data could hold.
    var uncompressedByteCount: Int {
        let (rows, overflow) = rowStride.multipliedReportingOverflow(by: height - 1)
        return overflow ? .max : rows + (width * bitsPerPixel + 7) / 8
    }
    /// Whether the image carries an alpha channel a decode will report (before looking at pixel values).
    var mayHaveAlpha: Bool { alpha != .opaque }

    /// The headers of a BMP file: "BM", the 14-byte file header, the info header, masks and palette.
    static func parseFile(_ bytes: UnsafeRawBufferPointer) throws -> BMPHeader {
        guard bytes.count >= 18, bytes[0] == 0x42, bytes[1] == 0x4D else {
            throw ImageError(.badImageData, "BMP: the data is too short for a file header or lacks \"BM\"")
        }
        let declaredOffset = Int(bytes.bmpUInt32(at: 10))
        return try parse(bytes, infoStart: 14, pixelOffset: declaredOffset == 0 ? nil : declaredOffset,
                         doubledHeight: false)
    }

    /// The DIB of an ICO/CUR entry starting at `start`: an info header whose height counts the XOR bitmap and
    /// the AND mask together, then the palette, then the pixels.
    static func parseIconDIB(_ bytes: UnsafeRawBufferPointer, at start: Int) throws -> BMPHeader {
        try parse(bytes, infoStart: start, pixelOffset: nil, doubledHeight: true)
    }

    /// Parses the info header at `infoStart`; `pixelOffset` is the file header's bfOffBits when there is one,
    /// otherwise the pixels follow the palette directly.
    private static func parse(
        _ bytes: UnsafeRawBufferPointer, infoStart: Int, pixelOffset: Int?, doubledHeight: Bool
    ) throws -> BMPHeader {
        guard bytes.count >= infoStart + 4 else { throw ImageError(.badImageData, "BMP: the data ends in the header") }
        let infoSize = Int(bytes.bmpUInt32(at: infoStart))
        guard [12, 40, 52, 56, 64, 108, 124].contains(infoSize) else {
            throw ImageError(.badImageData, "BMP: unknown \(infoSize)-byte info header")
        }
        guard bytes.count >= infoStart + infoSize else {
            throw ImageError(.badImageData, "BMP: the data ends inside the \(infoSize)-byte info header")
        }
        let fields = try InfoFields(bytes, at: infoStart, size: infoSize)
        var height = fields.height
        if doubledHeight { height /= 2 }  // the XOR bitmap; the AND mask is the other half
        guard fields.width > 0, height != 0, height != Int(Int32.min) else {
            throw ImageError(.badImageData, "BMP: the header declares an empty or impossible size "
                + "\(fields.width)x\(fields.height)")
        }
        let compression = try Self.compression(fields)
        var cursor = infoStart + infoSize
        let (masks, alpha, maskBytes) = try Self.masks(bytes, fields: fields, after: cursor)
        cursor += maskBytes
        guard !(height < 0 && compression != .none) else {
            throw ImageError(.badImageData, "BMP: a run-length encoded bitmap cannot be top-down")
        }

        var palette: [RGBA] = []
        var pixelStart = cursor
        if fields.bitsPerPixel <= 8 {
            let entrySize = infoSize == 12 ? 3 : 4
            let declared = fields.colorsUsed > 0 ? fields.colorsUsed : 1 << fields.bitsPerPixel
            // The table may not reach past the pixel array (bfOffBits) or the data.
            let end = min(pixelOffset ?? Int.max, bytes.count)
            let room = max(0, end - cursor) / entrySize
            let count = min(declared, 1 << fields.bitsPerPixel, room)
            palette.reserveCapacity(count)
            for index in 0..<count {
                let entry = cursor + index * entrySize
                palette.append(RGBA(bytes[entry + 2], bytes[entry + 1], bytes[entry]))
            }
            let (tableBytes, overflow) = declared.multipliedReportingOverflow(by: entrySize)
            pixelStart = overflow ? Int.max : cursor + tableBytes
        }
        if let pixelOffset {
            guard pixelOffset >= cursor, pixelOffset <= bytes.count else {
                throw ImageError(.badImageData, "BMP: the pixel data offset \(pixelOffset) is outside the file")
            }
            pixelStart = pixelOffset
        }
        guard pixelStart <= bytes.count else {
            throw ImageError(.badImageData, "BMP: the data ends inside the colour table")
        }
        return BMPHeader(
            infoSize: infoSize, width: fields.width, height: abs(height), isTopDown: height < 0,
            bitsPerPixel: fields.bitsPerPixel, compression: compression, masks: masks, alpha: alpha,
            palette: palette, pixelOffset: pixelStart)
    }

    /// The pixel layout named by biCompression, checked against the bit depth.
    private static func compression(_ fields: InfoFields) throws -> Compression {
        let bits = fields.bitsPerPixel
        switch fields.compression {
        case 0:
            guard [1, 2, 4, 8, 16, 24, 32].contains(bits) else {
                throw ImageError(.badImageData, "BMP: \(bits) bits per pixel is not a BMP depth")
            }
            return .none
        case 1 where bits == 8: return .rle8
        case 2 where bits == 4: return .rle4
        case 1, 2:
            throw ImageError(.badImageData, "BMP: run-length compression \(fields.compression) at \(bits) bits")
        case 3 where fields.infoSize == 64, 4 where fields.infoSize == 64:
            throw ImageError(.unsupportedFormat, "BMP: OS/2 Huffman and RLE24 compression are not supported")
        case 3, 6:
            guard [16, 24, 32].contains(bits) else {
                throw ImageError(.badImageData, "BMP: bit-field compression at \(bits) bits per pixel")
            }
            return .none
        case 4, 5:
            let kind = fields.compression == 4 ? "JPEG" : "PNG"
            throw ImageError(.unsupportedFormat, "BMP: embedded \(kind) data is not supported")
        case 11, 12, 13:
            throw ImageError(.unsupportedFormat, "BMP: CMYK bitmaps are not supported")
        default:
            throw ImageError(.badImageData, "BMP: unknown compression \(fields.compression)")
        }
    }

    /// The channel masks and alpha rule, and how many bytes of masks follow a 40-byte header.
    private static func masks(_ bytes: UnsafeRawBufferPointer, fields: InfoFields, after cursor: Int) throws
        -> (BMPChannelMasks, AlphaRule, Int)
    {
        let bits = fields.bitsPerPixel
        let start = fields.infoStart
        switch fields.compression {
        case 3, 6:
            var maskStart = start + 40
            var extraBytes = 0
            if fields.infoSize < 52 {
                // A BITMAPINFOHEADER is followed by three masks (four for BI_ALPHABITFIELDS).
                extraBytes = fields.compression == 6 ? 16 : 12
                maskStart = cursor
                guard bytes.count >= cursor + extraBytes else {
                    throw ImageError(.badImageData, "BMP: the data ends inside the channel masks")
                }
            }
            let hasAlphaMask = fields.compression == 6 || fields.infoSize >= 56
            let alphaMask = hasAlphaMask ? bytes.bmpUInt32(at: maskStart + 12) : 0
            let masks = try BMPChannelMasks(
                red: bytes.bmpUInt32(at: maskStart), green: bytes.bmpUInt32(at: maskStart + 4),
                blue: bytes.bmpUInt32(at: maskStart + 8), alpha: alphaMask, bitsPerPixel: bits)
            return (masks, masks.alpha.isPresent ? .declared : .opaque, extraBytes)
        default:
            if bits == 16 { return (.rgb555, .opaque, 0) }
            guard bits == 32, fields.infoSize >= 56 else { return (.rgb888, .opaque, 0) }
            // The V3–V5 alpha mask of a BI_RGB bitmap: honoured only where it does not overlap the colours.
            let alphaMask = bytes.bmpUInt32(at: start + 52)
            guard alphaMask & 0x00FF_FFFF == 0, let alpha = try? BMPChannelMask(alphaMask), alpha.isPresent else {
                return (.rgb888, .opaque, 0)
            }
            var masks = BMPChannelMasks.rgb888
            masks.alpha = alpha
            return (masks, .whenNonZero, 0)
        }
    }
}

/// The raw fields of an info header, before any interpretation.
private struct InfoFields {
    let infoStart: Int
    let infoSize: Int
    let width: Int
    let height: Int
    let bitsPerPixel: Int
    let compression: UInt32
    let colorsUsed: Int

    init(_ bytes: UnsafeRawBufferPointer, at start: Int, size: Int) throws {
        infoStart = start
        infoSize = size
        if size == 12 {
            // BITMAPCOREHEADER: unsigned 16-bit sizes, no compression, no colour count.
            width = bytes.bmpUInt16(at: start + 4)
            height = bytes.bmpUInt16(at: start + 6)
            bitsPerPixel = bytes.bmpUInt16(at: start + 10)
            compression = 0
            colorsUsed = 0
            guard [1, 4, 8, 24].contains(bitsPerPixel) else {
                throw ImageError(.badImageData, "BMP: \(bitsPerPixel) bits per pixel in a core header")
            }
        } else {
            width = bytes.bmpInt32(at: start + 4)
            height = bytes.bmpInt32(at: start + 8)
            bitsPerPixel = bytes.bmpUInt16(at: start + 14)
            compression = bytes.bmpUInt32(at: start + 16)
            colorsUsed = Int(bytes.bmpUInt32(at: start + 32))
        }
    }
}
