/// The two DNS messages the loader's own resolver needs (RFC 1035): a query for one name and type, and the
/// addresses in an answer to it.
enum DNSMessage {
    /// Record types asked for.
    enum RecordType: UInt16 {
        case a = 1
        case aaaa = 28
    }

    /// What an answer said.
    enum Answer: Equatable {
        /// The addresses, and the smallest time to live (in seconds) among their records (`nil` with none).
        case addresses([IPAddress], ttl: UInt32?)
        /// The server answered with an error code (3: no such name).
        case failure(code: Int)
    }

    /// Whether `name` is a host name DNS can carry: dot-separated labels of letters, digits, `-` and `_`, each
    /// 1–63 bytes, 253 bytes in all (one trailing dot allowed). Anything else (`%`, spaces, non-ASCII) is not
    /// looked up at all.
    static func isValidName(_ name: String) -> Bool {
        var text = Substring(name)
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
        }
    }

    /// A recursive query for `name` (which must pass ``isValidName(_:)``).
    static func query(id: UInt16, name: String, type: RecordType) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes.append(contentsOf: label.utf8)
        }
        bytes.append(0)
        bytes.append(contentsOf: [UInt8(type.rawValue >> 8), UInt8(type.rawValue & 0xFF), 0, 1])
        return bytes
    }

    /// The addresses of `type` in `message` if it is the answer to query `id`; `nil` for anything else (another
    /// query's answer, a question, a malformed message), which the caller ignores.
    static func answer(_ message: [UInt8], id: UInt16, type: RecordType) -> Answer? {
        var reader = Reader(bytes: message)
        guard let answerID = reader.uint16(), answerID == id, let flags = reader.uint16(), flags & 0x8000 != 0,
              let questions = reader.uint16(), let answers = reader.uint16(),
              reader.skip(4) else { return nil }
        let code = Int(flags & 0x000F)
        if code != 0 { return .failure(code: code) }
        for _ in 0..<questions {
            guard reader.skipName(), reader.skip(4) else { return nil }
        }
        var addresses: [IPAddress] = []
        var ttl: UInt32?
        for _ in 0..<answers {
            guard reader.skipName(), let recordType = reader.uint16(), let recordClass = reader.uint16(),
                  let high = reader.uint16(), let low = reader.uint16(), let length = reader.uint16(),
                  let data = reader.take(Int(length)) else { return nil }
            let expectedLength = type == .a ? 4 : 16
            // CNAME records come first in a chain; only the addresses count.
            guard recordType == type.rawValue, recordClass == 1, data.count == expectedLength,
                  let address = IPAddress(bytes: data) else { continue }
            ttl = min(ttl ?? .max, UInt32(high) << 16 | UInt32(low))
            if !addresses.contains(address) { addresses.append(address) }
        }
        return .addresses(addresses, ttl: ttl)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func uint16() -> UInt16? {
            guard offset + 2 <= bytes.count else { return nil }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        mutating func skip(_ count: Int) -> Bool {
            guard offset + count <= bytes.count else { return false }
            offset += count
            return true
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        /// Skips a name: labels up to a zero byte, or up to a compression pointer (two bytes, `11` on top).
        mutating func skipName() -> Bool {
            while offset < bytes.count {
                let length = bytes[offset]
                if length == 0 { offset += 1; return true }
                if length & 0xC0 == 0xC0 { return skip(2) }
                guard length & 0xC0 == 0, skip(1 + Int(length)) else { return false }
            }
            return false
        }
    }
}
