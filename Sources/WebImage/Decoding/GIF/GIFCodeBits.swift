/// Reads a GIF's variable-width LZW codes, least significant bit first, straight from the image's data
/// sub-blocks in the file (a length byte, then up to 255 bytes), so the compressed data is never copied out.
struct GIFCodeBits {
    private let input: UnsafeRawBufferPointer
    /// The next byte to read, and the end of the sub-block it is in.
    private var offset = 0
    private var blockEnd = 0
    /// The terminator (or the end of the input) was met: no bytes follow.
    private var exhausted = false
    private var buffer: UInt64 = 0
    private var bitCount = 0

    /// `input` starts at the first sub-block's length byte.
    init(input: UnsafeRawBufferPointer) {
        self.input = input
    }

    /// The next code of `width` bits, or `nil` when the data has fewer bits left.
    @inline(__always)
    mutating func next(width: Int) -> Int? {
        if bitCount < width {
            refill()
            guard bitCount >= width else { return nil }
        }
        let code = Int(truncatingIfNeeded: buffer & ((1 << UInt64(width)) - 1))
        buffer >>= UInt64(width)
        bitCount -= width
        return code
    }

    /// Tops the bit buffer up to at least 56 bits, or to whatever the data has left.
    ///
    /// Inside a sub-block, one unaligned 8-byte load does it. The bytes loaded past the whole ones taken land above
    /// `bitCount`, where the next refill ORs in the same bytes again, so they never need clearing; and they are
    /// never past the sub-block, so a length byte is never mistaken for data.
    private mutating func refill() {
        if offset + 8 <= blockEnd {
            let word = UInt64(littleEndian: input.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            buffer |= word << UInt64(bitCount)
            let taken = (63 - bitCount) >> 3
            offset += taken
            bitCount += taken << 3
            return
        }
        while bitCount <= 56 {
            if offset == blockEnd && !nextBlock() { return }
            buffer |= UInt64(input[offset]) << UInt64(bitCount)
            offset += 1
            bitCount += 8
        }
    }

    /// Steps over the next length byte; false at the terminator or the end of the input. A sub-block cut short by
    /// the end of the input gives the bytes it has.
    private mutating func nextBlock() -> Bool {
        guard !exhausted, blockEnd < input.count, input[blockEnd] != 0 else {
            exhausted = true
            return false
        }
        offset = blockEnd + 1
        blockEnd = min(offset + Int(input[blockEnd]), input.count)
        if offset == blockEnd {
            exhausted = true
            return false
        }
        return true
    }
}
