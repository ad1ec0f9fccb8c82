import Foundation

/// Writes what a JPEG carries beside its scans as application segments, after the JFIF APP0 segment that must
/// come first: EXIF and XMP in APP1, the ICC profile in APP2 (split into numbered pieces when over 64 KB, the
/// ICC's own convention), IPTC in APP13 as Photoshop image resources.
enum JPEGAppSegments {
    /// Profile bytes one segment holds: 65 535 minus the length field, `ICC_PROFILE\0` and the two numbers.
    static let bytesPerICCSegment = 65_535 - 2 - 14

    /// `jpeg` with `profile` and `metadata` inserted. A metadata block too large for one segment (EXIF over
    /// 64 KB, an XMP packet that would need Adobe's extended XMP) is left out.
    static func tagging(_ jpeg: Data, profile: ColorProfile?, metadata: ImageMetadata?) throws -> Data {
        var segments = Data()
        if let exif = metadata?.exif {
            append(0xE1, prefix: Array("Exif".utf8) + [0, 0], exif, to: &segments)
        }
        if let xmp = metadata?.xmp {
            append(0xE1, prefix: Array(JPEGMarkerScanner.xmpNamespace.utf8), xmp, to: &segments)
        }
        if let icc = profile?.iccData {
            let count = (icc.count + bytesPerICCSegment - 1) / bytesPerICCSegment
            guard count > 0, count <= 255 else {
                throw ImageError(.badImageData, "JPEG: an ICC profile of \(icc.count) bytes does not fit in 255 segments")
            }
            for index in 0..<count {
                let piece = icc.dropFirst(index * bytesPerICCSegment).prefix(bytesPerICCSegment)
                append(0xE2, prefix: Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)], piece,
                       to: &segments)
            }
        }
        if let iptc = metadata?.iptc {
            append(0xED, prefix: Array(JPEGMarkerScanner.photoshopHeader.utf8), iptc, to: &segments)
        }
        guard !segments.isEmpty, jpeg.count > 4, jpeg[jpeg.startIndex] == 0xFF, jpeg[jpeg.startIndex + 1] == 0xD8
        else { return jpeg }
        var insertAt = jpeg.startIndex + 2
        if jpeg[insertAt] == 0xFF, jpeg[insertAt + 1] == 0xE0, jpeg.count > insertAt + 4 {
            insertAt += 2 + (Int(jpeg[insertAt + 2]) << 8 | Int(jpeg[insertAt + 3]))
        }
        var tagged = Data(jpeg[..<insertAt])
        tagged.append(segments)
        tagged.append(jpeg[insertAt...])
        return tagged
    }

    /// Appends one segment of `marker` holding `prefix` then `payload`, unless it would not fit in one.
    private static func append(_ marker: UInt8, prefix: [UInt8], _ payload: Data, to segments: inout Data) {
        let length = 2 + prefix.count + payload.count
        guard length <= 65_535 else { return }
        segments.append(contentsOf: [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + prefix)
        segments.append(payload)
    }
}
