import Foundation

/// Positions in JPEG files that tests patch or read.
enum JPEGTestBytes {
    /// The offset from the file's first byte of its first baseline frame header marker (`FF C0`) after the SOI
    /// marker, or `nil` when it has none. (A plain loop: the closure-based search this replaces took the type
    /// checker seconds in every test build.)
    static func baselineFrameHeaderOffset(in data: Data) -> Int? {
        let bytes = [UInt8](data)
        var index = 2
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF && bytes[index + 1] == 0xC0 { return index }
            index += 1
        }
        return nil
    }
}
