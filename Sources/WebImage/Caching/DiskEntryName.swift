import Crypto

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
        var hasher = SHA256()
        var key = key
        key.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        let digest = hasher.finalize()
        words = digest.withUnsafeBytes { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
             bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian,
             bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self).bigEndian,
             bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self).bigEndian)
        }
        pathExtension = Self.pathExtension(ofKey: key)
    }

    /// Parses a file name made by ``fileName``; `nil` for anything else (temporary files, strangers).
    init?(fileName: String) {
        let utf8 = Array(fileName.utf8)
        guard utf8.count >= Self.digestHexLength else { return nil }
        var words: [UInt64] = []
        for start in stride(from: 0, to: Self.digestHexLength, by: 16) {
            var word: UInt64 = 0
            for byte in utf8[start..<start + 16] {
                guard let nibble = Self.hexValue(byte) else { return nil }
                word = word << 4 | UInt64(nibble)
            }
            words.append(word)
        }
        let rest = utf8[Self.digestHexLength...]
        var pathExtension = ""
        if !rest.isEmpty {
            guard rest.first == UInt8(ascii: "."), rest.count >= 2, rest.count - 1 <= Self.maximumExtensionLength,
                  rest.dropFirst().allSatisfy(Self.isExtensionByte) else { return nil }
            pathExtension = String(decoding: rest.dropFirst(), as: UTF8.self)
        }
        self.words = (words[0], words[1], words[2], words[3])
        self.pathExtension = pathExtension
    }

    /// The file name: 64 hex digits, then `.` and the extension when there is one.
    var fileName: String {
        var name = ""
        name.reserveCapacity(Self.digestHexLength + 1 + pathExtension.utf8.count)
        for word in [words.0, words.1, words.2, words.3] {
            let hex = String(word, radix: 16)
            name += String(repeating: "0", count: 16 - hex.utf8.count) + hex
        }
        if !pathExtension.isEmpty { name += "." + pathExtension }
        return name
    }

    /// The extension of the last path component of a URL-like key, with the query and fragment ignored;
    /// lowercased, and empty unless it is 1 to 8 ASCII letters or digits.
    static func pathExtension(ofKey key: String) -> String {
        var path = Substring(key)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        let component = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return "" }
        let candidate = component[component.index(after: dot)...].lowercased()
        guard (1...maximumExtensionLength).contains(candidate.utf8.count),
              candidate.utf8.allSatisfy(isExtensionByte) else { return "" }
        return candidate
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
