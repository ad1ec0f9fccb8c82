/// How values are written inside transformer keys, the same on every machine, run and locale.
///
/// Numbers: rounded to 6 decimal places, trailing zeros and a trailing point dropped, no exponent, `-0` as `0`
/// (so `10`, `2.5`, `0.333333`); `nan`, `inf` and `-inf` for the non-finite values. Colours: `#rrggbbaa` in
/// lower-case hexadecimal. Booleans: `1` or `0`.
enum TransformerKeyFormat {
    /// `value` as described above.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        let micros = (value * 1_000_000).rounded()
        // Beyond 2^53 micro-units doubles are no longer exact integers; their shortest form is still stable.
        guard abs(micros) < 9_000_000_000_000_000 else { return "\(value)" }
        let scaled = Int64(micros)
        if scaled == 0 { return "0" }
        let magnitude = scaled.magnitude
        let whole = magnitude / 1_000_000, fraction = magnitude % 1_000_000
        var text = scaled < 0 ? "-\(whole)" : "\(whole)"
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// `#rrggbbaa`, lower case.
    static func color(_ color: RGBA) -> String {
        "#" + [color.r, color.g, color.b, color.a].map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }

    /// `1` or `0`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}
