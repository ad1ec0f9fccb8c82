/// The header at the start of every disk cache file, followed by the payload (the stored bytes).
///
/// Layout, all integers little-endian:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `89 57 49 43 0D 0A 1A 0A` ("\x89WIC\r\n\x1A\n", PNG-style: catches text-mode mangling) |
/// | 8 | 2 | version (1) |
/// | 10 | 2 | flags (bit 0: `expires` present) |
/// | 12 | 4 | header length H (offset of the payload) |
/// | 16 | 8 | payload length P |
/// | 24 | 8 | checksum of the payload (XXH64, see `EntryChecksum`) |
/// | 32 | 8 | checksum of the header (bytes 0..<H with this field read as zero) |
/// | 40 | 8 | created, seconds since 1970 (IEEE double bits) |
/// | 48 | 8 | expires, seconds since 1970 (IEEE double bits) |
/// | 56 | … | four strings, each a 4-byte length then UTF-8: key, format, ETag, Last-Modified |
///
/// A file is valid only when its size is exactly H + P and both checksums match. The last-access time is not in
/// the header: it is the file's modification time (a file's bytes never change after it is renamed into place),
/// so the index is built from `stat` alone and a hit never rewrites the file.
struct DiskEntryHeader: Equatable {
    static let magic: [UInt8] = [0x89, 0x57, 0x49, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
    static let version: UInt16 = 1
    /// Bytes before the strings.
    static let fixedLength = 56
    /// The most header bytes a reader accepts (the key is the only long field).
    static let maximumLength = 1 << 20

    var key: String
    var format: String
    var created: Double
    var validators: HTTPValidators
    var payloadLength: Int
    var payloadChecksum: UInt64

    /// The header bytes, checksum included.
    func encoded() throws(DiskEntryDamage) -> [UInt8] {
        var bytes: [UInt8] = []
        let strings = [key, format, validators.etag ?? "", validators.lastModified ?? ""].map { Array($0.utf8) }
        let length = Self.fixedLength + strings.reduce(0) { $0 + 4 + $1.count }
        guard length <= Self.maximumLength else { throw DiskEntryDamage("the key is too long to store") }
        bytes.reserveCapacity(length)
        bytes += Self.magic
        bytes.appendLittleEndian(Self.version)
        bytes.appendLittleEndian(UInt16(validators.expires == nil ? 0 : 1))
        bytes.appendLittleEndian(UInt32(length))
        bytes.appendLittleEndian(UInt64(payloadLength))
        bytes.appendLittleEndian(payloadChecksum)
        bytes.appendLittleEndian(UInt64(0))
        bytes.appendLittleEndian(created.bitPattern)
        bytes.appendLittleEndian((validators.expires ?? 0).bitPattern)
        for string in strings {
            bytes.appendLittleEndian(UInt32(string.count))
            bytes += string
        }
        let checksum = EntryChecksum.hash(bytes)
        Swift.withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(32..<40, with: $0) }
        return bytes
    }

    /// The header length and payload length declared by the first ``fixedLength`` bytes, after checking the
    /// magic and version.
    static func declaredLengths(_ bytes: UnsafeRawBufferPointer) throws(DiskEntryDamage) -> (header: Int, payload: Int) {
        guard bytes.count >= fixedLength else { throw DiskEntryDamage("shorter than a header") }
        guard bytes.prefix(magic.count).elementsEqual(magic) else { throw DiskEntryDamage("wrong magic") }
        guard bytes.littleEndian(UInt16.self, at: 8) == version else { throw DiskEntryDamage("unknown version") }
        let header = Int(bytes.littleEndian(UInt32.self, at: 12))
        let payload = bytes.littleEndian(UInt64.self, at: 16)
        guard header >= fixedLength + 16, header <= maximumLength else { throw DiskEntryDamage("bad header length") }
        guard payload <= UInt64(Int.max / 2) else { throw DiskEntryDamage("bad payload length") }
        return (header, Int(payload))
    }

    /// Parses and verifies a complete header (`bytes` holds at least the declared header length).
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(DiskEntryDamage) -> DiskEntryHeader {
        let (length, payloadLength) = try declaredLengths(bytes)
        guard bytes.count >= length else { throw DiskEntryDamage("truncated header") }
        var copy = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
        copy.replaceSubrange(32..<40, with: repeatElement(0, count: 8))
        guard EntryChecksum.hash(copy) == bytes.littleEndian(UInt64.self, at: 32) else {
            throw DiskEntryDamage("header checksum mismatch")
        }
        let flags = bytes.littleEndian(UInt16.self, at: 10)
        var offset = fixedLength
        var strings: [String] = []
        for _ in 0..<4 {
            guard offset + 4 <= length else { throw DiskEntryDamage("truncated string") }
            let count = Int(bytes.littleEndian(UInt32.self, at: offset))
            offset += 4
            guard count <= length - offset else { throw DiskEntryDamage("string past the header") }
            strings.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self))
            offset += count
        }
        guard offset == length else { throw DiskEntryDamage("header length does not match its fields") }
        let expires = Double(bitPattern: bytes.littleEndian(UInt64.self, at: 48))
        return DiskEntryHeader(
            key: strings[0], format: strings[1], created: Double(bitPattern: bytes.littleEndian(UInt64.self, at: 40)),
            validators: HTTPValidators(
                etag: strings[2].isEmpty ? nil : strings[2], lastModified: strings[3].isEmpty ? nil : strings[3],
                expires: flags & 1 == 1 ? expires : nil),
            payloadLength: payloadLength, payloadChecksum: bytes.littleEndian(UInt64.self, at: 24))
    }
}

/// Why a disk cache file was rejected. Never escapes the cache: a damaged entry is deleted and reads as a miss.
struct DiskEntryDamage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    fileprivate func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
