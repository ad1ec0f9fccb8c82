/// imgproxy's URL signature: the unpadded URL-safe Base64 of HMAC-SHA256(key, salt ‖ path), where the path is
/// everything after the signature segment, starting with its `/`. Signing code written for imgproxy, in any
/// language, makes URLs this server accepts.
///
/// As in imgproxy, a server may hold several key/salt pairs (a URL signed with any of them passes, so keys can be
/// rotated without refusing URLs made with the old pair), may cut signatures to their first bytes
/// (`IMGPROXY_SIGNATURE_SIZE`), and may trust some signatures as they are (`IMGPROXY_TRUSTED_SIGNATURES`).
public struct URLSignature: Sendable {
    /// One key and the salt that goes with it.
    private struct Pair: Sendable {
        let key: [UInt8]
        let salt: [UInt8]
    }

    private let pairs: [Pair]
    /// How many bytes of the MAC a signature holds (1–32; 32, the whole MAC, by default).
    public let size: Int
    private let trustedSignatures: Set<String>

    /// A signer for a key and salt given in hex, as `--key` and `--salt` (and imgproxy's `IMGPROXY_KEY`,
    /// `IMGPROXY_SALT`) take them.
    /// - Throws: ``ProxyConfigurationError`` when either is empty or not an even number of hex digits.
    public init(keyHex: String, saltHex: String) throws {
        try self.init(keysHex: [keyHex], saltsHex: [saltHex])
    }

    /// A signer for several key/salt pairs, paired by position (the first key with the first salt, and so on):
    /// a URL signed with any pair passes, and ``signature(for:)`` signs with the first.
    /// - Parameters:
    ///   - size: how many leading bytes of the MAC a signature holds, 1 to 32 (imgproxy's
    ///     `IMGPROXY_SIGNATURE_SIZE`); signatures are made and checked at this size.
    ///   - trustedSignatures: signature segments that pass without being checked, compared as written (imgproxy's
    ///     `IMGPROXY_TRUSTED_SIGNATURES`).
    /// - Throws: ``ProxyConfigurationError`` when there is no pair, the counts of keys and salts differ, one is
    ///   empty or not an even number of hex digits, or the size is outside 1–32.
    public init(keysHex: [String], saltsHex: [String], size: Int = 32, trustedSignatures: [String] = []) throws {
        guard !keysHex.isEmpty else { throw ProxyConfigurationError("no key: give at least one key and salt") }
        guard keysHex.count == saltsHex.count else {
            throw ProxyConfigurationError(
                "\(keysHex.count) keys and \(saltsHex.count) salts: each key needs its salt, in the same position")
        }
        guard (1...32).contains(size) else {
            throw ProxyConfigurationError("the signature size must be 1 to 32 bytes, not \(size)")
        }
        let numbered = keysHex.count > 1
        pairs = try zip(keysHex, saltsHex).enumerated().map { index, texts in
            let which = numbered ? " \(index + 1)" : ""
            guard let key = Self.bytes(fromHex: texts.0), !key.isEmpty else {
                throw ProxyConfigurationError("key\(which) must be a non-empty even number of hex digits")
            }
            guard let salt = Self.bytes(fromHex: texts.1), !salt.isEmpty else {
                throw ProxyConfigurationError("salt\(which) must be a non-empty even number of hex digits")
            }
            return Pair(key: key, salt: salt)
        }
        self.size = size
        self.trustedSignatures = Set(trustedSignatures)
    }

    /// How many key/salt pairs sign URLs.
    public var pairCount: Int { pairs.count }

    /// The signature segment for `path` (which starts with `/`, after where the signature goes), made with the
    /// first pair.
    public func signature(for path: Substring) -> String {
        Base64URL.encode(code(for: path, with: pairs[0]))
    }

    /// Whether `signature` signs `path`: it is a trusted signature, or the MAC of one of the pairs cut to
    /// ``size``. Compared in constant time, against every pair whatever the first ones gave; a signature that is
    /// not Base64 is wrong.
    public func isValid(_ signature: Substring, for path: Substring) -> Bool {
        if !trustedSignatures.isEmpty, trustedSignatures.contains(String(signature)) { return true }
        guard let given = Base64URL.decode(signature) else { return false }
        var matches = false
        for pair in pairs {
            matches = HMACSHA256.constantTimeEquals(given, code(for: path, with: pair)) || matches
        }
        return matches
    }

    private func code(for path: Substring, with pair: Pair) -> [UInt8] {
        let code = HMACSHA256.authenticationCode(key: pair.key, message: pair.salt + Array(path.utf8))
        return size < code.count ? Array(code.prefix(size)) : code
    }

    package static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
