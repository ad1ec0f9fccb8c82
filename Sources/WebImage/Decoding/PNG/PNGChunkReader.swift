/// A PNG chunk type: four ASCII letters, compared as one big-endian number.
struct PNGChunkType: Hashable, CustomStringConvertible {
    let rawValue: UInt32

    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The type named by four ASCII letters, such as `"IDAT"`.
    init(_ name: StaticString) {
        rawValue = name.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    static let IHDR = PNGChunkType("IHDR")
    static let PLTE = PNGChunkType("PLTE")
    static let IDAT = PNGChunkType("IDAT")
    static let IEND = PNGChunkType("IEND")
    static let tRNS = PNGChunkType("tRNS")
    static let eXIf = PNGChunkType("eXIf")
    static let acTL = PNGChunkType("acTL")
    static let fcTL = PNGChunkType("fcTL")
    static let fdAT = PNGChunkType("fdAT")

    /// Critical chunks (first letter upper case) must be understood by a decoder; ancillary ones may be skipped.
    var isCritical: Bool { rawValue & 0x2000_0000 == 0 }

    /// The four letters (non-printable bytes as `?`).
    var description: String {
        String(decoding: (0..<4).map { shift -> UInt8 in
            let byte = UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * UInt32(shift)))
            return (0x20..<0x7F).contains(byte) ? byte : 0x3F
        }, as: UTF8.self)
    }
}

/// One chunk of a PNG file in memory: its type, and where its data (between the type and the CRC) lies.
struct PNGChunk {
    let type: PNGChunkType
    let data: Range<Int>
    /// Where the whole chunk (length, type, data, CRC) lies.
    var whole: Range<Int> { (data.lowerBound - 8)..<(data.upperBound + 4) }
}

/// Walks the chunks of a PNG file held in memory, checking each chunk's bounds and, on request, its CRC.
///
/// Everything here is bounds-checked: a length that runs past the data, a length over 2³¹ − 1 or a wrong CRC is
/// `ImageError.Code.badImageData`, never a read outside `bytes`.
struct PNGChunkReader {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    let bytes: UnsafeRawBufferPointer
    /// Where the next chunk starts.
    private(set) var offset = signature.count

    /// A reader positioned at the first chunk; throws when `bytes` does not start with the PNG signature.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= Self.signature.count, bytes.prefix(Self.signature.count).elementsEqual(Self.signature)
        else { throw ImageError(.badImageData, "PNG: the data does not start with the PNG signature") }
        self.bytes = bytes
    }

    /// Whether every chunk has been read: the data ends here.
    var isAtEnd: Bool { offset >= bytes.count }

    /// The next chunk, with its CRC checked when `verifyingChecksum` is on. Throws when the data ends inside it.
    mutating func next(verifyingChecksum: Bool = true) throws -> PNGChunk {
        guard bytes.count - offset >= 12 else {
            throw ImageError(.badImageData, "PNG: the data ends inside a chunk header at byte \(offset)")
        }
        let length = Int(uint32(at: offset))
        let type = PNGChunkType(rawValue: uint32(at: offset + 4))
        guard length <= Int(Int32.max) else {
            throw ImageError(.badImageData, "PNG: the \(type) chunk at byte \(offset) declares \(length) bytes")
        }
        let dataStart = offset + 8
        guard bytes.count - dataStart - 4 >= length else {
            throw ImageError(.badImageData, "PNG: the data ends inside the \(type) chunk at byte \(offset)")
        }
        let chunk = PNGChunk(type: type, data: dataStart..<(dataStart + length))
        if verifyingChecksum { try verifyChecksum(of: chunk) }
        offset = chunk.data.upperBound + 4
        return chunk
    }

    /// Throws unless the CRC stored after `chunk` matches its type and data.
    func verifyChecksum(of chunk: PNGChunk) throws {
        let typeAndData = (chunk.data.lowerBound - 4)..<chunk.data.upperBound
        let computed = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[typeAndData]))
        guard computed == uint32(at: chunk.data.upperBound) else {
            throw ImageError(.badImageData,
                             "PNG: the \(chunk.type) chunk at byte \(chunk.data.lowerBound - 8) fails its CRC check")
        }
    }

    /// The big-endian 32-bit number at `index` (which the caller has bounds-checked).
    func uint32(at index: Int) -> UInt32 {
        UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
    }

    /// The big-endian 16-bit number at `index` (which the caller has bounds-checked).
    func uint16(at index: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt16.self))
    }
}
