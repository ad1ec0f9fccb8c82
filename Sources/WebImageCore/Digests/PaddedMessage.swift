/// A message padded as MD5, SHA-1 and the SHA-2 family pad it before hashing block by block: a 1 bit, zeros, then
/// the message length in bits in the last `lengthByteCount` bytes of the final block (big-endian for SHA, little-
/// endian for MD5), so that the whole is a multiple of `blockByteCount`.
package struct PaddedMessage {
    package let bytes: [UInt8]

    package init(_ message: UnsafeRawBufferPointer, blockByteCount: Int, lengthByteCount: Int, bigEndianLength: Bool) {
        var bytes = Array(message)
        let bitLength = UInt64(message.count) &* 8
        bytes.append(0x80)
        while (bytes.count + lengthByteCount) % blockByteCount != 0 { bytes.append(0) }
        // Lengths of 2⁶⁴ bits and more do not occur here; wider length fields get leading zeros.
        var length = [UInt8](repeating: 0, count: lengthByteCount)
        for index in 0..<8 { length[lengthByteCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * index)) }
        bytes += bigEndianLength ? length : length.reversed()
        self.bytes = bytes
    }

    /// The padded message in blocks of `blockByteCount` bytes.
    package func blocks(of blockByteCount: Int) -> StrideTo<Int> { stride(from: 0, to: bytes.count, by: blockByteCount) }
}
