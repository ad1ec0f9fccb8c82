import Foundation

/// MD5 as RFC 1321 defines it. Broken for security; here only as a checksum that users ask for by name (imgproxy's
/// `/info` and `webimage info --hashsums` report it beside the SHA family).
package enum MD5 {
    /// The digest of `message` (16 bytes).
    package static func digest(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476]
        let padded = PaddedMessage(message, blockByteCount: 64, lengthByteCount: 8, bigEndianLength: false)
        for start in padded.blocks(of: 64) {
            let words = (0..<16).map { index in
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(padded.bytes[start + index * 4 + $1]) << (8 * $1) }
            }
            var a = state[0], b = state[1], c = state[2], d = state[3]
            for step in 0..<64 {
                var f: UInt32
                let index: Int
                switch step / 16 {
                case 0: f = (b & c) | (~b & d); index = step
                case 1: f = (d & b) | (~d & c); index = (5 * step + 1) % 16
                case 2: f = b ^ c ^ d; index = (3 * step + 5) % 16
                default: f = c ^ (b | ~d); index = (7 * step) % 16
                }
                f = f &+ a &+ constants[step] &+ words[index]
                a = d
                d = c
                c = b
                b = b &+ f.rotatedLeft(shifts[step / 16 * 4 + step % 4])
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }

    /// The rotation of each step, by round (four per round, repeating).
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    /// The integer part of |sin(i + 1)| · 2³², as RFC 1321 builds its table.
    private static let constants: [UInt32] = (0..<64).map { UInt32(abs(sin(Double($0 + 1))) * 4_294_967_296) }
}

extension UInt32 {
    fileprivate func rotatedLeft(_ count: UInt32) -> UInt32 { (self << count) | (self >> (32 - count)) }
}
