/// SHA-1 as FIPS 180-4 defines it. Broken for signatures; here only as a checksum that users ask for by name.
package enum SHA1 {
    /// The digest of `message` (20 bytes).
    package static func digest(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0]
        let padded = PaddedMessage(message, blockByteCount: 64, lengthByteCount: 8, bigEndianLength: true)
        var schedule = [UInt32](repeating: 0, count: 80)
        for start in padded.blocks(of: 64) {
            for index in 0..<16 {
                schedule[index] = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(padded.bytes[start + index * 4 + $1]) }
            }
            for index in 16..<80 {
                let mixed = schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16]
                schedule[index] = (mixed << 1) | (mixed >> 31)
            }
            var a = state[0], b = state[1], c = state[2], d = state[3], e = state[4]
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch index / 20 {
                case 0: ((b & c) | (~b & d), 0x5a82_7999)
                case 1: (b ^ c ^ d, 0x6ed9_eba1)
                case 2: ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc)
                default: (b ^ c ^ d, 0xca62_c1d6)
                }
                let next = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ schedule[index]
                e = d
                d = c
                c = (b << 30) | (b >> 2)
                b = a
                a = next
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }
}
