extension RGBA {
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

    /// `#rrggbbaa` in lower case, as in transformer keys.
    public var hexString: String { TransformerKeyFormat.color(self) }
}
