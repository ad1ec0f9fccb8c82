import CSpng

/// Decodes the pixels of single APNG frames through the ordinary PNG path: each frame's compressed data is
/// wrapped as a standalone PNG — IHDR with the frame's width and height (bit depth, colour type and interlace
/// from the file's IHDR), the file's PLTE and tRNS, the data as IDAT chunks, IEND — and handed to libspng, so
/// frames get exactly what still PNGs get (every colour type and bit depth, palettes and colour keys, Adam7,
/// 16-bit rounding, libspng's checks of the zlib stream).
///
/// Colour chunks (gAMA, cHRM, sRGB, iCCP) are not copied: the still-image path does not apply them either, so a
/// frame and the same pixels stored as a still PNG decode alike.
struct APNGFrameImage {
    let file: APNGFile
    let limits: DecodeLimits
    /// The standalone PNG being built; its memory is reused from frame to frame.
    private var png = PNGChunkWriter()

    init(file: APNGFile, limits: DecodeLimits) {
        self.file = file
        self.limits = limits
    }

    /// The pixels of `frame`, `frame.control.rect.size` large, straight alpha.
    mutating func decode(_ frame: APNGFile.Frame) throws -> PixelBuffer {
        build(frame)
        return try png.bytes.withUnsafeBytes { png in
            let context = try SpngContext.decoder(reading: png, limits: limits)
            let header = try context.header()
            let size = PixelSize(width: Int(header.width), height: Int(header.height))
            return header.bit_depth == 16
                ? try PNGDecoder.decodeSixteenBit(context, size: size, interlaced: header.interlace_method != 0,
                                                  converting: nil)
                : try PNGDecoder.decodeEightBit(context, size: size)
        }
    }

    /// Writes the standalone PNG of `frame` into ``png``.
    private mutating func build(_ frame: APNGFile.Frame) {
        let bytes = file.bytes
        png.reset()
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(frame.control.rect.width))
        header.appendBigEndian(UInt32(frame.control.rect.height))
        header.append(contentsOf: bytes[(file.header.lowerBound + 8)..<file.header.upperBound])
        png.append(.IHDR, data: header)
        // PLTE and tRNS are copied whole: their CRCs were checked and still hold.
        for chunk in [file.palette, file.transparency].compactMap({ $0 }) {
            png.appendVerbatim(UnsafeRawBufferPointer(rebasing: bytes[chunk.whole]))
        }
        for range in frame.data {
            png.append(.IDAT, data: UnsafeRawBufferPointer(rebasing: bytes[range]))
        }
        png.appendEnd()
    }
}
