import WebImage

/// The types of the top-level ISO BMFF boxes of a file, read from their 8- or 16-byte headers only.
///
/// libheif 1.15 reads still items (the `meta` box) and nothing of an image sequence's `moov` track; this tells a
/// sequence with no still image (a valid file libheif cannot read: ``ImageError/Code/unsupportedFormat``) from a
/// damaged still (``ImageError/Code/badImageData``) before libheif is asked.
enum HEIFTopLevelBoxes {
    /// At most this many boxes are looked at: real files have a handful (`ftyp`, `meta`, `moov`, `mdat`, `free`).
    static let maximumBoxes = 64

    static func types(in bytes: UnsafeRawBufferPointer) -> [String] {
        var types: [String] = []
        var offset = 0
        while types.count < maximumBoxes, offset + 8 <= bytes.count {
            let size32 = bytes.loadBigEndianUInt32(at: offset)
            types.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
            let size: UInt64
            switch size32 {
            case 0: return types  // the box runs to the end of the file
            case 1:  // a 64-bit size follows the type
                guard offset + 16 <= bytes.count else { return types }
                size = UInt64(bytes.loadBigEndianUInt32(at: offset + 8)) << 32
                    | UInt64(bytes.loadBigEndianUInt32(at: offset + 12))
                guard size >= 16 else { return types }
            default:
                size = UInt64(size32)
                guard size >= 8 else { return types }
            }
            guard size <= UInt64(bytes.count - offset) else { return types }
            offset += Int(size)
        }
        return types
    }

    /// Whether the file is an image sequence without a still primary image (a `moov` box and no `meta` box).
    static func isSequenceWithoutStill(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let found = types(in: bytes)
        return found.contains("moov") && !found.contains("meta")
    }
}

extension UnsafeRawBufferPointer {
    fileprivate func loadBigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }
}
