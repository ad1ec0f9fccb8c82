/// Finds where a GIF's records end while its bytes arrive, without decoding anything: the header and global
/// colour table, then each extension and image record by its fixed part and its chain of length-prefixed
/// sub-blocks. It resumes where it stopped, inside a record too, so each byte is looked at about once however the
/// data is cut.
///
/// This is only the file's block structure, the same one giflib follows, so a record boundary found here is where
/// giflib's reader stands after that record; ``GIFPushDecoder`` hands the complete records to giflib.
struct GIFRecordScanner {
    /// The logical screen from the header, once its 13 bytes are in.
    private(set) var screenSize: PixelSize?
    /// Where the records start (after the header and global colour table); 0 until they are in.
    private(set) var recordsStart = 0
    /// Where the last complete image record ends; 0 before the first.
    private(set) var lastImageEnd = 0
    /// Where the trailer ends, once it is read.
    private(set) var trailerEnd: Int?
    /// The damage met, with everything before it still usable: a byte that starts no known record.
    private(set) var failure: ImageError?

    private enum Kind { case image, `extension` }

    /// Where the next record starts (or the current one, while its sub-blocks are being walked).
    private var offset = 0
    /// The record being walked and the position of its next sub-block's length byte; `nil` between records.
    private var current: (kind: Kind, nextBlock: Int)?

    /// Walks whatever `bytes` (everything received so far) adds.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        guard trailerEnd == nil, failure == nil else { return }
        if recordsStart == 0, !readHeader(bytes) { return }
        while trailerEnd == nil, failure == nil {
            if current == nil, !startRecord(bytes) { return }
            guard let (kind, start) = current else { return }
            var block = start
            // Each sub-block is a length byte and that many bytes; a zero length ends the record.
            while block < bytes.count, bytes[block] != 0 {
                block += 1 + Int(bytes[block])
            }
            guard block < bytes.count else {
                current = (kind, block)
                return
            }
            offset = block + 1
            current = nil
            if kind == .image { lastImageEnd = offset }
        }
    }

    /// Reads the header and the global colour table when they are in; `false` while they are not.
    private mutating func readHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 13 else { return false }
        guard bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46 else {  // "GIF"
            failure = ImageError(.badImageData, "GIF: not a GIF file")
            return false
        }
        screenSize = PixelSize(width: Int(bytes[6]) | Int(bytes[7]) << 8, height: Int(bytes[8]) | Int(bytes[9]) << 8)
        let flags = bytes[10]
        let tableLength = flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0
        guard bytes.count >= 13 + tableLength else { return false }
        recordsStart = 13 + tableLength
        offset = recordsStart
        return true
    }

    /// Reads the fixed part of the record at ``offset`` when it is in; `false` while it is not (or it is damaged).
    private mutating func startRecord(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard offset < bytes.count else { return false }
        switch bytes[offset] {
        case 0x3B:
            trailerEnd = offset + 1
            return false
        case 0x21:
            // The introducer, the label, then sub-blocks.
            guard offset + 2 <= bytes.count else { return false }
            current = (.extension, offset + 2)
            return true
        case 0x2C:
            // The introducer, 9 bytes of descriptor, the local colour table, the LZW code size, then sub-blocks.
            guard offset + 10 <= bytes.count else { return false }
            let flags = bytes[offset + 9]
            let tableLength = flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0
            let dataStart = offset + 10 + tableLength + 1
            guard dataStart <= bytes.count else { return false }
            current = (.image, dataStart)
            return true
        default:
            let type = String(bytes[offset], radix: 16)
            failure = ImageError(.badImageData, "GIF: an unknown record type 0x\(type) at byte \(offset)")
            return false
        }
    }
}
