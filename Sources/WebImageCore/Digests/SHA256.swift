/// SHA-256 as FIPS 180-4 defines it, for the names of disk cache entries (and, as `package` API, the image
/// proxy's URL signatures).
///
/// The package needs one digest of short keys, and the dependency that used to provide it (swift-crypto) compiled a
/// copy of BoringSSL into every build: four builds in CI (plain, two sanitizers, fuzzing), 95 s of the plain build
/// alone. Names are not secrets, so constant time does not matter here; the digest must simply be the standard one,
/// because the names of entries written by earlier versions are SHA-256 too (tests pin it with NIST's vectors and
/// Python's hashlib).
package struct SHA256: Sendable {
    /// Bytes in a block: HMAC pads its key to this.
    package static let blockByteCount = 64

    /// The eight words of the running hash.
    private var state = SIMD8<UInt32>(
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
    /// Bytes of a block not yet complete.
    private var pending = SIMD64<UInt8>()
    private var pendingCount = 0
    /// Bytes hashed so far.
    private var length: UInt64 = 0

    /// A hasher with nothing hashed yet.
    package init() {}

    /// The digest of `bytes`, as its eight 32-bit words (the digest's bytes, big-endian, first word first).
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> SIMD8<UInt32> {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The first `words` words of `digest` in lowercase hex, 8 digits a word (all 64 digits by default), written
    /// in one allocation: the image proxy's ETags and the Redis tier's keys are made on every request.
    package static func hex(_ digest: SIMD8<UInt32>, words: Int = 8) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: words * 8) { buffer in
            for word in 0..<words {
                for nibble in 0..<8 {
                    buffer[word * 8 + nibble] = digits[Int(digest[word] >> UInt32(28 - nibble * 4) & 0xF)]
                }
            }
            return words * 8
        }
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        length &+= UInt64(remaining)
        if pendingCount > 0 {
            let taken = min(64 - pendingCount, remaining)
            let offset = pendingCount
            withUnsafeMutableBytes(of: &pending) {
                $0.baseAddress!.advanced(by: offset).copyMemory(from: next, byteCount: taken)
            }
            pendingCount += taken
            next += taken
            remaining -= taken
            guard pendingCount == 64 else { return }
            let block = pending
            withUnsafeBytes(of: block) { compress($0.baseAddress!) }
            pendingCount = 0
        }
        while remaining >= 64 {
            compress(next)
            next += 64
            remaining -= 64
        }
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.copyMemory(from: next, byteCount: remaining) }
            pendingCount = remaining
        }
    }

    /// Pads the message (a 1 bit, zeros, its length in bits) and returns the digest's eight words.
    package consuming func finalize() -> SIMD8<UInt32> {
        var bitLength = (length &* 8).bigEndian
        var marker: UInt8 = 0x80
        withUnsafeBytes(of: &marker) { update($0) }
        // Zeros up to 56 bytes into a block, leaving 8 for the length.
        let zeros = (64 + 56 - pendingCount) % 64
        withUnsafeBytes(of: SIMD64<UInt8>()) { update(UnsafeRawBufferPointer(rebasing: $0[..<zeros])) }
        withUnsafeBytes(of: &bitLength) { update($0) }
        return state
    }

    /// The digest's 32 bytes, in order.
    package consuming func finalizeBytes() -> [UInt8] {
        let words = finalize()
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for index in 0..<8 { withUnsafeBytes(of: words[index].bigEndian) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    /// One 64-byte block into the state.
    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for index in 0..<16 {
                schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
            }
            for index in 16..<64 {
                let early = schedule[index - 15], late = schedule[index - 2]
                let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
                let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            var (e, f, g, h) = (state[4], state[5], state[6], state[7])
            Self.roundConstants.withUnsafeBufferPointer { constants in
                for index in 0..<64 {
                    let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let first = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
                    let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    (h, g, f, e) = (g, f, e, d &+ first)
                    (d, c, b, a) = (c, b, a, first &+ sum0 &+ majority)
                }
            }
            state &+= SIMD8(a, b, c, d, e, f, g, h)
        }
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4, 4.2.2).
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

extension UInt32 {
    /// The bits rotated `count` places towards the low end.
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
