import WebImageCore

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4), the MAC of imgproxy's URL signatures.
package enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    package static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let blockSize = SHA256.blockByteCount
        // A key longer than a block is hashed first; a shorter one is padded with zeros.
        var block = key.count > blockSize ? Self.digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        (block.map { $0 ^ 0x36 }).withUnsafeBytes { inner.update($0) }
        message.withUnsafeBytes { inner.update($0) }
        let innerDigest = inner.finalizeBytes()
        var outer = SHA256()
        (block.map { $0 ^ 0x5c }).withUnsafeBytes { outer.update($0) }
        innerDigest.withUnsafeBytes { outer.update($0) }
        return outer.finalizeBytes()
    }

    private static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeBytes()
    }

    /// Whether two byte strings are equal, in a time that depends only on their lengths: a signature check must not
    /// tell an attacker how many leading bytes of a guess were right.
    package static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
