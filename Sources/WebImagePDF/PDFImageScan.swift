import Foundation
import WebImage

/// Finds the largest image a PDF declares, from the dictionaries of its stream objects, without parsing the file.
///
/// Why: poppler's cairo backend decodes every image a page draws at the image's own size, whatever size the page
/// is drawn at: a 389 KB page holding one 20 000 × 20 000 Flate-compressed image takes 1.6 GB and seconds, and
/// poppler-glib has no hook to stop it. Image XObjects are streams, and streams are never stored inside object
/// streams, so their dictionaries (`<< … /Width 20000 /Height 20000 … >> stream`) are always in plain bytes.
/// What this cannot see: sizes given as indirect references, and inline images inside compressed content streams.
enum PDFImageScan {
    /// How far before a `stream` keyword its dictionary is looked for.
    static let window = 4_096

    /// The largest `/Width` × `/Height` (both direct integers) of any stream dictionary in `bytes`, or 0.
    static func largestImageArea(_ bytes: UnsafeRawBufferPointer) -> Int {
        let keyword = Array("stream".utf8)
        var largest = 0
        var boundary = 0  // dictionaries never reach back past the previous stream keyword
        var index = 0
        while let found = find(keyword, in: bytes, from: index) {
            index = found + keyword.count
            // Not "endstream" or a word in text: a stream's dictionary ends right before its keyword.
            if endsWithDictionary(bytes, before: found) {
                let header = UnsafeRawBufferPointer(rebasing: bytes[max(boundary, found - window)..<found])
                if let width = integer(after: "/Width", in: header),
                   let height = integer(after: "/Height", in: header) {
                    let (area, overflow) = width.multipliedReportingOverflow(by: height)
                    largest = max(largest, overflow ? .max : area)
                }
            }
            boundary = index  // each byte is looked at by one window only: the scan stays linear
        }
        return largest
    }

    /// Whether the bytes before `position`, less white space, end with `>>` (a stream's dictionary).
    static func endsWithDictionary(_ bytes: UnsafeRawBufferPointer, before position: Int) -> Bool {
        var end = position
        while end > 0, isWhiteSpace(bytes[end - 1]) { end -= 1 }
        return end >= 2 && bytes[end - 1] == UInt8(ascii: ">") && bytes[end - 2] == UInt8(ascii: ">")
    }

    /// The direct non-negative integer after the last `name` key in `bytes`; `nil` when absent or indirect.
    static func integer(after name: String, in bytes: UnsafeRawBufferPointer) -> Int? {
        let key = Array(name.utf8)
        var result: Int?
        var index = 0
        while let found = find(key, in: bytes, from: index) {
            index = found + key.count
            var cursor = index
            guard cursor < bytes.count, !isRegular(bytes[cursor]) else { continue }  // not `/WidthScale`
            while cursor < bytes.count, isWhiteSpace(bytes[cursor]) { cursor += 1 }
            guard let (value, next) = digits(bytes, at: cursor) else { continue }
            result = isReference(bytes, at: next) ? nil : value
        }
        return result
    }

    /// Whether `<generation> R` follows: the number was an object number, not a value.
    private static func isReference(_ bytes: UnsafeRawBufferPointer, at position: Int) -> Bool {
        var cursor = position
        while cursor < bytes.count, isWhiteSpace(bytes[cursor]) { cursor += 1 }
        guard let (_, next) = digits(bytes, at: cursor) else { return false }
        cursor = next
        while cursor < bytes.count, isWhiteSpace(bytes[cursor]) { cursor += 1 }
        return cursor < bytes.count && bytes[cursor] == UInt8(ascii: "R")
    }

    /// A run of decimal digits at `position` (capped, so that absurd values do not overflow) and where it ends.
    private static func digits(_ bytes: UnsafeRawBufferPointer, at position: Int) -> (Int, Int)? {
        var cursor = position, value = 0
        while cursor < bytes.count, bytes[cursor] >= UInt8(ascii: "0"), bytes[cursor] <= UInt8(ascii: "9") {
            value = min(value * 10 + Int(bytes[cursor] - UInt8(ascii: "0")), 1 << 40)
            cursor += 1
        }
        return cursor > position ? (value, cursor) : nil
    }

    private static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C || byte == 0x00
    }

    /// Not white space and not a PDF delimiter: a byte that would continue a name such as `/WidthScale`.
    private static func isRegular(_ byte: UInt8) -> Bool {
        !isWhiteSpace(byte) && !"()<>[]{}/%".utf8.contains(byte)
    }

    /// The first position of `needle` in `bytes` at or after `start`, found with `memchr` on its first byte.
    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, let first = needle.first else { return nil }
        var position = start
        while position + needle.count <= bytes.count {
            guard let hit = memchr(base + position, Int32(first), bytes.count - position - needle.count + 1) else {
                return nil
            }
            let offset = base.distance(to: UnsafeRawPointer(hit))
            if needle.indices.allSatisfy({ bytes[offset + $0] == needle[$0] }) { return offset }
            position = offset + 1
        }
        return nil
    }
}
