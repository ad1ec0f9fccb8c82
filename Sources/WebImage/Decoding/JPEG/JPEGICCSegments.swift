import Foundation

/// Writes an ICC profile into a JPEG as APP2 `ICC_PROFILE` segments (the ICC's own convention: a profile over
/// 64 KB is split, each piece numbered from 1 with the count), after the JFIF APP0 segment that must come first.
enum JPEGICCSegments {
    /// Profile bytes one segment holds: 65 535 minus the length field, `ICC_PROFILE\0` and the two numbers.
    static let bytesPerSegment = 65_535 - 2 - 14

    static func tagging(_ jpeg: Data, with icc: Data) throws -> Data {
        let count = (icc.count + bytesPerSegment - 1) / bytesPerSegment
        guard count > 0, count <= 255 else {
            throw ImageError(.badImageData, "JPEG: an ICC profile of \(icc.count) bytes does not fit in 255 segments")
        }
        guard jpeg.count > 4, jpeg[jpeg.startIndex] == 0xFF, jpeg[jpeg.startIndex + 1] == 0xD8 else { return jpeg }
        var insertAt = jpeg.startIndex + 2
        if jpeg[insertAt] == 0xFF, jpeg[insertAt + 1] == 0xE0, jpeg.count > insertAt + 4 {
            insertAt += 2 + (Int(jpeg[insertAt + 2]) << 8 | Int(jpeg[insertAt + 3]))
        }
        var segments = Data()
        for index in 0..<count {
            let piece = icc.dropFirst(index * bytesPerSegment).prefix(bytesPerSegment)
            let length = 2 + 14 + piece.count
            segments.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)])
            segments.append(contentsOf: Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)])
            segments.append(piece)
        }
        var tagged = Data(jpeg[..<insertAt])
        tagged.append(segments)
        tagged.append(jpeg[insertAt...])
        return tagged
    }
}
