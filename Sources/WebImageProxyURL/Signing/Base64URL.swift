/// The URL-safe Base64 alphabet of RFC 4648 §5 (`-` and `_` for `+` and `/`), as imgproxy writes signatures (no
/// padding) and reads encoded source URLs (padding optional).
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` encoded, without `=` padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = UInt32(0)
            for (offset, byte) in chunk.enumerated() { value |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { output.append(alphabet[Int(value >> (18 - 6 * position) & 0x3F)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`, padded or not; `nil` when it holds any other character, a misplaced `=`, or a length
    /// no encoding has (one character over a whole group).
    package static func decode(_ text: Substring) -> [UInt8]? {
        var digits = Array(text.utf8)
        while digits.last == UInt8(ascii: "=") { digits.removeLast() }
        guard digits.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(digits.count * 3 / 4)
        var accumulator = UInt32(0), bits = 0
        for digit in digits {
            guard let value = Self.value(of: digit) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): digit - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"), UInt8(ascii: "+"): 62  // the standard alphabet's characters are read too
        case UInt8(ascii: "_"), UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
