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
    private static let endChunk: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    let file: APNGFile
    let limits: DecodeLimits
    /// The standalone PNG being built; its memory is reused from frame to frame.
    private var png: [UInt8] = []

    init(file: APNGFile, limits: DecodeLimits) {
        self.file = file
        self.limits = limits
    }

    /// The pixels of `frame`, `frame.control.rect.size` large, straight alpha.
    mutating func decode(_ frame: APNGFile.Frame) throws -> PixelBuffer {
        build(frame)
        return try png.withUnsafeBytes { png in
            let context = try SpngContext.decoder(reading: png, limits: limits)
            let header = try context.header()
            let size = PixelSize(width: Int(header.width), height: Int(header.height))
            return header.bit_depth == 16
                ? try PNGDecoder.decodeSixteenBit(context, size: size, interlaced: header.interlace_method != 0)
                : try PNGDecoder.decodeEightBit(context, size: size)
        }
    }

    /// Writes the standalone PNG of `frame` into ``png``.
    private mutating func build(_ frame: APNGFile.Frame) {
        let bytes = file.bytes
        png.removeAll(keepingCapacity: true)
        png.append(contentsOf: PNGChunkReader.signature)
        var header = [UInt8](repeating: 0, count: 13)
        Self.storeBigEndian(UInt32(frame.control.rect.width), in: &header, at: 0)
        Self.storeBigEndian(UInt32(frame.control.rect.height), in: &header, at: 4)
        for index in 8..<13 { header[index] = bytes[file.header.lowerBound + index] }
        header.withUnsafeBytes { appendChunk(.IHDR, data: $0) }
        // PLTE and tRNS are copied whole: their CRCs were checked and still hold.
        for chunk in [file.palette, file.transparency].compactMap({ $0 }) {
            png.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[chunk.whole]))
        }
        for range in frame.data {
            appendChunk(.IDAT, data: UnsafeRawBufferPointer(rebasing: bytes[range]))
        }
        png.append(contentsOf: Self.endChunk)
    }

    /// Appends one chunk: length, type, `data`, and the CRC of type and data.
    private mutating func appendChunk(_ type: PNGChunkType, data: UnsafeRawBufferPointer) {
        var prefix = [UInt8](repeating: 0, count: 8)
        Self.storeBigEndian(UInt32(data.count), in: &prefix, at: 0)
        Self.storeBigEndian(type.rawValue, in: &prefix, at: 4)
        let typeStart = png.count + 4
        png.append(contentsOf: prefix)
        png.append(contentsOf: data)
        let crc = png.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[typeStart...])) }
        var trailer = [UInt8](repeating: 0, count: 4)
        Self.storeBigEndian(crc, in: &trailer, at: 0)
        png.append(contentsOf: trailer)
    }

    private static func storeBigEndian(_ value: UInt32, in bytes: inout [UInt8], at index: Int) {
        for shift in 0..<4 { bytes[index + shift] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(shift))) }
    }
}
