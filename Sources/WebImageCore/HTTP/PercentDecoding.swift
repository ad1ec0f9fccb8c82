import Foundation

/// Percent-decoding on UTF-8 bytes: to raw bytes (Foundation's `removingPercentEncoding` refuses bytes that are not
/// UTF-8), or to text as `removingPercentEncoding` gives it (which on Linux goes through `NSString`, too slow for
/// the proxy's every request).
package enum PercentDecoding {
    /// The bytes of `text` with every `%XX` replaced by its byte, or `nil` if a `%` is not followed by two hex
    /// digits.
    package static func bytes<S: StringProtocol>(of text: S) -> Data? {
        decoded(text).map { Data($0) }
    }

    /// `text` percent-decoded as `removingPercentEncoding` does it: `nil` for a broken escape or bytes that are
    /// not UTF-8.
    package static func string<S: StringProtocol>(of text: S) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return decoded(text).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The decoded bytes, gathered in an array: appending to `Data` a byte at a time costs a call each, and the
    /// proxy decodes every request's source URL.
    private static func decoded<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            output.append(high << 4 | low)
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
