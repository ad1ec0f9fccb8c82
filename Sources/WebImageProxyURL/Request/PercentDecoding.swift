/// Percent-decoding of URL text as Foundation's `removingPercentEncoding` does it (every `%XX` to its byte, `nil`
/// for a `%` without two hex digits after it or bytes that are not UTF-8), on the UTF-8 bytes directly: Foundation
/// goes through `NSString` on Linux, which cost a tenth of a cached answer's time.
enum PercentDecoding {
    static func decode(_ text: Substring) -> String? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                index = utf8.index(after: index)
                continue
            }
            let first = utf8.index(after: index)
            guard first != utf8.endIndex, let high = hexValue(utf8[first]) else { return nil }
            let second = utf8.index(after: first)
            guard second != utf8.endIndex, let low = hexValue(utf8[second]) else { return nil }
            bytes.append(high << 4 | low)
            index = utf8.index(after: second)
        }
        return String(validating: bytes, as: UTF8.self)
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
