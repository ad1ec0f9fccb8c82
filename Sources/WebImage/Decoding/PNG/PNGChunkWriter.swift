/// Builds a PNG file in memory chunk by chunk: the signature, then each chunk with its length and CRC.
struct PNGChunkWriter {
    /// The file so far.
    private(set) var bytes: [UInt8] = PNGChunkReader.signature

    /// Starts over with just the signature, keeping the memory.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: PNGChunkReader.signature)
    }

    /// Appends a chunk of `type` whose data is `sequenceNumber` (when given, as fdAT and fcTL start) followed by
    /// `data`.
    mutating func append(_ type: PNGChunkType, sequenceNumber: UInt32? = nil, data: UnsafeRawBufferPointer) {
        let length = data.count + (sequenceNumber == nil ? 0 : 4)
        appendBigEndian(UInt32(truncatingIfNeeded: length))
        let typeStart = bytes.count
        appendBigEndian(type.rawValue)
        if let sequenceNumber { appendBigEndian(sequenceNumber) }
        bytes.append(contentsOf: data)
        let crc = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[typeStart...])) }
        appendBigEndian(crc)
    }

    /// Appends a chunk whose data is `data`.
    mutating func append(_ type: PNGChunkType, data: [UInt8]) {
        data.withUnsafeBytes { append(type, data: $0) }
    }

    /// Appends bytes that already form whole chunks (copied from another file, their CRCs still right).
    mutating func appendVerbatim(_ chunks: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: chunks)
    }

    /// Appends the IEND chunk that ends every file.
    mutating func appendEnd() {
        append(.IEND, data: [])
    }

    private mutating func appendBigEndian(_ value: UInt32) {
        bytes.appendBigEndian(value)
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as four big-endian bytes (how PNG stores every number).
    mutating func appendBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Appends `value` as two big-endian bytes.
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
