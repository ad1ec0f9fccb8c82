/// The identity of a disk cache entry: the SHA-256 digest of its key.
///
/// File names are the digest in lowercase hex plus, for readability, a short sanitised extension taken from
/// the key's URL path, so no key — `../`, absolute paths, NUL bytes, 10 000 characters — can name anything but
/// a plain file inside the cache folder.
struct DiskEntryName: Hashable, Sendable {
    /// The digest as four words, first bytes first.
    let words: (UInt64, UInt64, UInt64, UInt64)
    /// Lowercase letters and digits, at most ``maximumExtensionLength`` of them; empty when none.
    let pathExtension: String

    /// At most this many characters of extension are kept; longer or odder ones are dropped.
    static let maximumExtensionLength = 8
    /// Hex digits in a digest.
    static let digestHexLength = 64

    /// The name for `key`.
    init(key: String) {
        var key = key
        let digest = key.withUTF8 { SHA256.hash(UnsafeRawBufferPointer($0)) }
        func word(_ high: UInt32, _ low: UInt32) -> UInt64 { UInt64(high) << 32 | UInt64(low) }
        words = (word(digest[0], digest[1]), word(digest[2], digest[3]),
                 word(digest[4], digest[5]), word(digest[6], digest[7]))
        pathExtension = Self.pathExtension(ofKey: key)
    }

    /// Parses a file name made by ``fileName``; `nil` for anything else (temporary files, strangers).
    init?(fileName: String) {
        var fileName = fileName
        let parsed = fileName.withUTF8 { bytes -> ((UInt64, UInt64, UInt64, UInt64), String)? in
            guard bytes.count >= Self.digestHexLength else { return nil }
            func word(at start: Int) -> UInt64? {
                var word: UInt64 = 0
                for index in start..<start + 16 {
                    guard let nibble = Self.hexValue(bytes[index]) else { return nil }
                    word = word << 4 | UInt64(nibble)
                }
                return word
            }
            guard let w0 = word(at: 0), let w1 = word(at: 16), let w2 = word(at: 32), let w3 = word(at: 48)
            else { return nil }
            let rest = UnsafeBufferPointer(rebasing: bytes[Self.digestHexLength...])
            guard !rest.isEmpty else { return ((w0, w1, w2, w3), "") }
            guard rest[0] == UInt8(ascii: "."), rest.count >= 2, rest.count - 1 <= Self.maximumExtensionLength,
                  rest.dropFirst().allSatisfy(Self.isExtensionByte) else { return nil }
            return ((w0, w1, w2, w3), String(decoding: rest.dropFirst(), as: UTF8.self))
        }
        guard let parsed else { return nil }
        words = parsed.0
        pathExtension = parsed.1
    }

    /// The file name: 64 hex digits, then `.` and the extension when there is one.
    var fileName: String { fileName(in: nil) }

    /// `folder/` + the file name (or the file name alone), made in one allocation: it is built on every hit.
    func fileName(in folder: String?) -> String {
        var folder = folder ?? ""
        let prefixLength = folder.isEmpty ? 0 : folder.utf8.count + 1
        let extensionLength = pathExtension.isEmpty ? 0 : pathExtension.utf8.count + 1
        let total = prefixLength + Self.digestHexLength + extensionLength
        return folder.withUTF8 { folderBytes in
            String(unsafeUninitializedCapacity: total) { buffer in
                var index = 0
                for byte in folderBytes {
                    buffer[index] = byte
                    index += 1
                }
                if prefixLength > 0 {
                    buffer[index] = UInt8(ascii: "/")
                    index += 1
                }
                func appendHex(_ word: UInt64) {
                    for shift in stride(from: 60, through: 0, by: -4) {
                        buffer[index] = Self.hexDigits[Int(word >> UInt64(shift) & 0xF)]
                        index += 1
                    }
                }
                appendHex(words.0)
                appendHex(words.1)
                appendHex(words.2)
                appendHex(words.3)
                if extensionLength > 0 {
                    buffer[index] = UInt8(ascii: ".")
                    index += 1
                    for byte in pathExtension.utf8 {
                        buffer[index] = byte
                        index += 1
                    }
                }
                return index
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The extension of the last path component of a URL-like key, with the query and fragment ignored;
    /// lowercased, and empty unless it is 1 to 8 ASCII letters or digits. Scans the bytes once, allocating
    /// nothing (the result fits in a small string).
    static func pathExtension(ofKey key: String) -> String {
        var key = key
        return key.withUTF8 { bytes -> String in
            var end = bytes.count
            if let cut = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { end = cut }
            var dot = -1
            var index = end - 1
            while index >= 0 {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") { break }
                if byte == UInt8(ascii: ".") {
                    dot = index
                    break
                }
                index -= 1
            }
            // No dot, a dot that starts the component (".hidden"), or too long an extension: none.
            guard dot > 0, bytes[dot - 1] != UInt8(ascii: "/"), (1...maximumExtensionLength).contains(end - dot - 1)
            else { return "" }
            var lowered = [UInt8]()
            lowered.reserveCapacity(maximumExtensionLength)
            for byte in bytes[(dot + 1)..<end] {
                let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
                guard isExtensionByte(lower) else { return "" }
                lowered.append(lower)
            }
            return String(decoding: lowered, as: UTF8.self)
        }
    }

    static func == (lhs: DiskEntryName, rhs: DiskEntryName) -> Bool {
        lhs.words == rhs.words && lhs.pathExtension == rhs.pathExtension
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)  // already uniformly distributed: one word is enough
    }

    private static func isExtensionByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
