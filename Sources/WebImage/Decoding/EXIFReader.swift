/// Reads the orientation tag from EXIF metadata: the TIFF structure inside a JPEG APP1 segment, a PNG `eXIf`
/// chunk or a WebP `EXIF` chunk. Every offset is bounds-checked: hostile metadata yields `nil`, never a crash.
///
/// Not for users (they get orientation from ``ImageCoders/properties(of:)``): public only behind
/// `@_spi(CoderSupport)`, for the plugin coders in their own modules (AVIF) and the fuzz harnesses.
@_spi(CoderSupport)
public enum EXIFReader {
    private static let orientationTag: UInt16 = 0x0112
    private static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// The orientation stored in `bytes`, which may start with the `Exif\0\0` header or directly with the TIFF
    /// header. `nil` when there is no valid orientation tag.
    public static func orientation(in bytes: UnsafeRawBufferPointer) -> Orientation? {
        var tiff = bytes
        if bytes.count >= 6, bytes.prefix(6).elementsEqual(exifHeader) {
            tiff = UnsafeRawBufferPointer(rebasing: bytes[6...])
        }
        guard tiff.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func read16(_ offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let a = UInt16(tiff[offset]), b = UInt16(tiff[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func read32(_ offset: Int) -> UInt32? {
            guard let low = read16(littleEndian ? offset : offset + 2),
                  let high = read16(littleEndian ? offset + 2 : offset) else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }
        guard read16(2) == 42, let ifdOffset = read32(4).map(Int.init), let count = read16(ifdOffset) else {
            return nil
        }
        for entry in 0..<Int(count) {
            let offset = ifdOffset + 2 + entry * 12
            guard let tag = read16(offset) else { return nil }
            guard tag == orientationTag else { continue }
            // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard read16(offset + 2) == 3, let value = read16(offset + 8) else { return nil }
            return Orientation(rawValue: Int(value))
        }
        return nil
    }
}
