/// One RGBA8 colour, straight alpha.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    /// Creates a colour from its four channels.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// The four bytes as laid out in memory, read as one native-endian `UInt32`.
    package var packed: UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { $0[0] = r; $0[1] = g; $0[2] = b; $0[3] = a }
        return value
    }

    /// A colour from hexadecimal text: `#RRGGBBAA` or `#RRGGBB` (opaque), the `#` optional, either case —
    /// the notation of the command line's `--tint` and `--round` flags and of transformer keys.
    /// `nil` for anything else.
    public init?(hex text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
              let value = UInt32(digits, radix: 16) else { return nil }
        let full = digits.count == 8 ? value : value << 8 | 0xFF
        self.init(UInt8(truncatingIfNeeded: full >> 24), UInt8(truncatingIfNeeded: full >> 16),
                  UInt8(truncatingIfNeeded: full >> 8), UInt8(truncatingIfNeeded: full))
    }

    public var description: String { "RGBA(\(r), \(g), \(b), \(a))" }
}
