/// imgproxy's URL signature: the unpadded URL-safe Base64 of HMAC-SHA256(key, salt ‖ path), where the path is
/// everything after the signature segment, starting with its `/`. Signing code written for imgproxy, in any
/// language, makes URLs this server accepts.
public struct URLSignature: Sendable {
    private let key: [UInt8]
    private let salt: [UInt8]

    /// A signer for a key and salt given in hex, as `--key` and `--salt` (and imgproxy's `IMGPROXY_KEY`,
    /// `IMGPROXY_SALT`) take them.
    /// - Throws: ``ProxyConfigurationError`` when either is empty or not an even number of hex digits.
    public init(keyHex: String, saltHex: String) throws {
        guard let key = Self.bytes(fromHex: keyHex), !key.isEmpty else {
            throw ProxyConfigurationError("--key must be a non-empty even number of hex digits")
        }
        guard let salt = Self.bytes(fromHex: saltHex), !salt.isEmpty else {
            throw ProxyConfigurationError("--salt must be a non-empty even number of hex digits")
        }
        self.key = key
        self.salt = salt
    }

    /// The signature segment for `path` (which starts with `/`, after where the signature goes).
    public func signature(for path: Substring) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(key: key, message: salt + Array(path.utf8)))
    }

    /// Whether `signature` signs `path`. Compared in constant time; a signature that is not Base64 is wrong.
    public func isValid(_ signature: Substring, for path: Substring) -> Bool {
        guard let given = Base64URL.decode(signature) else { return false }
        let expected = HMACSHA256.authenticationCode(key: key, message: salt + Array(path.utf8))
        return HMACSHA256.constantTimeEquals(given, expected)
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
