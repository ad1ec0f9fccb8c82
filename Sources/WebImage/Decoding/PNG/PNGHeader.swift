/// A PNG file's IHDR chunk, read and checked against the PNG specification: the one check of a header that the
/// properties reader, the still and animated decoders and the fast row reader share, so that `info` never
/// describes a file the decoder then refuses.
///
/// Refused as `ImageError.Code.badImageData`: a first chunk that is not a 13-byte IHDR, a side of 0 or over
/// 2³¹ − 1, a colour type other than 0, 2, 3, 4 or 6, a bit depth that colour type does not allow, a compression
/// or filter method other than 0, an interlace method other than 0 or 1. (libspng and libpng refuse the same.)
struct PNGHeader {
    /// Where the IHDR chunk's 13 bytes of data lie in the file.
    let data: Range<Int>
    let size: PixelSize
    let bitDepth: UInt8
    let colorType: UInt8
    let interlaced: Bool

    /// The bit depths each colour type allows (PNG specification, table 11.1).
    private static func allowsBitDepth(_ depth: UInt8, colorType: UInt8) -> Bool? {
        switch colorType {
        case 0: [1, 2, 4, 8, 16].contains(depth)  // greyscale
        case 3: [1, 2, 4, 8].contains(depth)  // palette
        case 2, 4, 6: depth == 8 || depth == 16  // RGB, greyscale + alpha, RGBA
        default: nil
        }
    }

    /// Reads the chunk `reader` is at, which must be the file's IHDR, checking its CRC when `verifyingChecksum`.
    init(reading reader: inout PNGChunkReader, verifyingChecksum: Bool = true) throws {
        let chunk = try reader.next(verifyingChecksum: verifyingChecksum)
        guard chunk.type == .IHDR, chunk.data.count == 13 else {
            throw ImageError(.badImageData, "PNG: the file does not start with a 13-byte IHDR chunk")
        }
        let fields = chunk.data.lowerBound
        let width = reader.uint32(at: fields), height = reader.uint32(at: fields + 4)
        guard (1...UInt32(Int32.max)).contains(width), (1...UInt32(Int32.max)).contains(height) else {
            throw ImageError(.badImageData, "PNG: the header declares \(width)x\(height) pixels")
        }
        let bytes = reader.bytes
        let (depth, colorType) = (bytes[fields + 8], bytes[fields + 9])
        guard let allowed = Self.allowsBitDepth(depth, colorType: colorType) else {
            throw ImageError(.badImageData, "PNG: the header declares colour type \(colorType)")
        }
        guard allowed else {
            throw ImageError(.badImageData, "PNG: the header declares bit depth \(depth) for colour type \(colorType)")
        }
        let (compression, filter, interlace) = (bytes[fields + 10], bytes[fields + 11], bytes[fields + 12])
        guard compression == 0, filter == 0, interlace <= 1 else {
            throw ImageError(.badImageData, "PNG: the header declares compression method \(compression), "
                + "filter method \(filter), interlace method \(interlace)")
        }
        data = chunk.data
        size = PixelSize(width: Int(width), height: Int(height))
        bitDepth = depth
        self.colorType = colorType
        interlaced = interlace == 1
    }
}
