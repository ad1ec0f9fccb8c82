/// The base-83 digits BlurHash strings are written in: 83 characters that are safe in URLs, JSON and HTML
/// attributes, most significant digit first.
enum Base83 {
    static let digits: [UInt8] = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// The value of each ASCII byte as a digit, or -1 for a byte that is not one.
    private static let values: [Int8] = {
        var values = [Int8](repeating: -1, count: 256)
        for (value, digit) in digits.enumerated() { values[Int(digit)] = Int8(value) }
        return values
    }()

    /// Appends `value` as exactly `length` digits (`value` must be below 83^`length`).
    static func append(_ value: Int, length: Int, to text: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(length, 1) { divisor *= 83 }
        for _ in 0..<length {
            text.append(digits[(value / divisor) % 83])
            divisor /= 83
        }
    }

    /// The value of `length` digits of `text` from `start`, or `nil` when one of them is not a digit.
    static func value(of text: [UInt8], from start: Int, length: Int) -> Int? {
        var value = 0
        for index in start..<(start + length) {
            let digit = values[Int(text[index])]
            guard digit >= 0 else { return nil }
            value = value * 83 + Int(digit)
        }
        return value
    }
}
