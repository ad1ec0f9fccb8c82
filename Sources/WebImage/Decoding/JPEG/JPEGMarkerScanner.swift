import Foundation

/// What a JPEG says about itself before its first scan: frame size, EXIF, the Adobe colour transform, where the
/// entropy-coded data starts. Read by walking the marker segments, so it costs a few dozen byte reads however big
/// the file is, and happens before TurboJPEG is asked to allocate anything.
struct JPEGMarkers: Equatable {
    /// Width and height from the first SOFn segment.
    var frameSize: PixelSize
    /// Bits per sample from the SOFn segment (8 for everything TurboJPEG 2.1 decodes).
    var precision: Int
    /// The SOFn marker byte (0xC0 baseline, 0xC2 progressive, …).
    var frameMarker: UInt8
    /// Byte range of the first APP1 payload that starts with `Exif\0\0`, if any.
    var exif: Range<Int>?
    /// The transform byte of an Adobe APP14 segment (0 none/CMYK, 1 YCbCr, 2 YCCK); `nil` when there is none.
    /// Its presence means four-component data is stored inverted, as Photoshop writes it.
    var adobeTransform: UInt8?
    /// Offset of the first SOS marker.
    var scanStart: Int
    /// Colour components in the frame: 1 gray, 3 YCbCr or RGB, 4 CMYK or YCCK.
    var componentCount: Int = 3
    /// The payloads of the APP2 `ICC_PROFILE` segments, in the order their sequence numbers give: joined,
    /// they are the embedded ICC profile (a profile over 64 KB is split across several segments).
    var iccChunks: [Range<Int>] = []
    /// Byte range of the first APP1 payload holding an XMP packet, after its namespace header.
    var xmp: Range<Int>?
    /// The payloads of the APP13 `Photoshop 3.0` segments after that header: joined, the image resource block
    /// that holds IPTC (Photoshop splits a large one across segments).
    var photoshop: [Range<Int>] = []

    /// The embedded ICC profile, joined from its segments; `nil` when there is none, its segments do not add
    /// up (a missing or repeated sequence number) or it cannot be read, in which case the image is read as
    /// untagged.
    func colorProfile(in bytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard !iccChunks.isEmpty else { return nil }
        var profile = Data()
        for chunk in iccChunks { profile.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[chunk])) }
        return ColorProfile(icc: profile)
    }

    /// Whether the frame marker is one TurboJPEG 2.1 cannot decode: lossless (SOF3, SOF7, SOF11, SOF15),
    /// hierarchical (SOF5–SOF7, SOF13–SOF15), or JPG (0xC8, reserved for extensions).
    var isUnsupportedProcess: Bool {
        [0xC3, 0xC5, 0xC6, 0xC7, 0xC8, 0xCB, 0xCD, 0xCE, 0xCF].contains(frameMarker)
    }
}

enum JPEGMarkerScanner {
    /// What starts an APP1 segment holding XMP.
    static let xmpNamespace = "http://ns.adobe.com/xap/1.0/\0"
    /// What starts an APP13 segment holding Photoshop image resources (IPTC among them).
    static let photoshopHeader = "Photoshop 3.0\0"

    /// Walks the segments of `bytes` from SOI to the first SOS.
    ///
    /// Throws `ImageError.Code.badImageData` when the data is not a JPEG, a segment runs past the end (the
    /// file was cut inside its header), the image ends before any scan, or no frame header precedes the scan.
    /// Stray bytes between segments are skipped, as libjpeg does.
    static func scan(_ bytes: UnsafeRawBufferPointer) throws -> JPEGMarkers {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw ImageError(.badImageData, "not a JPEG: no start-of-image marker")
        }
        var frame: (size: PixelSize, precision: Int, marker: UInt8)?
        var exif: Range<Int>?
        var adobeTransform: UInt8?
        var componentCount = 3
        var iccSegments: [(sequence: Int, count: Int, range: Range<Int>)] = []
        var xmp: Range<Int>?
        var photoshop: [Range<Int>] = []
        var position = 2
        while true {
            // Stray bytes before the next 0xFF are skipped, as libjpeg skips them.
            while position < bytes.count, bytes[position] != 0xFF { position += 1 }
            let segment: JPEGSegment
            switch JPEGSegments.read(bytes, at: position) {
            case .marker(let read):
                segment = read
            case .truncated(nil):
                throw ImageError(.badImageData, "the JPEG data ends inside its header, before any image data")
            case .truncated(let marker?), .badLength(let marker):
                throw ImageError(.badImageData, "a JPEG marker segment (0x\(hex(marker))) runs past the end of the data")
            }
            let marker = segment.marker, markerStart = segment.markerIndex - 1
            let payload = segment.payload.lowerBound, end = segment.payload.upperBound, length = end - payload + 2
            position = segment.next
            switch marker {
            case 0xD9:
                throw ImageError(.badImageData, "the JPEG data ends (EOI) before any image data")
            case _ where JPEGSegments.standsAlone(marker):
                continue  // a stuffed byte (stray data) or a marker without a segment, skipped as libjpeg does
            default:
                break
            }
            switch marker {
            case 0xDA:
                guard let frame else {
                    throw ImageError(.badImageData, "the JPEG scan starts before any frame header")
                }
                return JPEGMarkers(frameSize: frame.size, precision: frame.precision, frameMarker: frame.marker,
                                   exif: exif, adobeTransform: adobeTransform, scanStart: markerStart,
                                   componentCount: componentCount, iccChunks: orderedICCChunks(iccSegments),
                                   xmp: xmp, photoshop: photoshop)
            case _ where JPEGSegments.startsFrame(marker):
                guard frame == nil else { break }  // libjpeg refuses a second SOF; let it say so
                guard length >= 8 else {
                    throw ImageError(.badImageData, "the JPEG frame header is too short")
                }
                let height = Int(bytes[payload + 1]) << 8 | Int(bytes[payload + 2])
                let width = Int(bytes[payload + 3]) << 8 | Int(bytes[payload + 4])
                frame = (PixelSize(width: width, height: height), Int(bytes[payload]), marker)
                componentCount = Int(bytes[payload + 5])
            case 0xE1 where exif == nil && startsWith(bytes, at: payload, end: end, "Exif\0\0"):
                exif = payload..<end
            case 0xE1 where xmp == nil && startsWith(bytes, at: payload, end: end, Self.xmpNamespace):
                xmp = payload + Self.xmpNamespace.utf8.count..<end
            case 0xED where startsWith(bytes, at: payload, end: end, Self.photoshopHeader):
                photoshop.append(payload + Self.photoshopHeader.utf8.count..<end)
            case 0xE2 where end - payload > 14 && startsWith(bytes, at: payload, end: end, "ICC_PROFILE\0"):
                iccSegments.append((Int(bytes[payload + 12]), Int(bytes[payload + 13]), payload + 14..<end))
            case 0xEE where adobeTransform == nil && end - payload >= 12
                && startsWith(bytes, at: payload, end: end, "Adobe"):
                adobeTransform = bytes[payload + 11]
            default:
                break
            }
        }
    }

    /// The ICC segments' payloads in sequence order, or none when their numbering is inconsistent: each says
    /// its number (from 1) and how many there are, and a profile is whole only with each number once.
    private static func orderedICCChunks(_ segments: [(sequence: Int, count: Int, range: Range<Int>)]) -> [Range<Int>] {
        guard let count = segments.first?.count, count == segments.count,
              segments.allSatisfy({ $0.count == count }) else { return [] }
        let ordered = segments.sorted { $0.sequence < $1.sequence }
        guard ordered.map(\.sequence) == Array(1...count) else { return [] }
        return ordered.map(\.range)
    }

    /// Whether an EOI marker follows the first scan: the cheap structural test for a cut-off file.
    ///
    /// Entropy-coded data never holds 0xFF 0xD9 (a 0xFF there is always followed by 0x00 or a restart marker),
    /// so the last 0xFF 0xD9 after `scanStart` is the real end of the image. Searching backwards makes the usual
    /// case, EOI in the last two bytes, constant time; trailing bytes after EOI (padding, appended data) are
    /// allowed, as every decoder allows them. A file cut short, or cut and then zero-filled, has none.
    static func hasEndOfImage(_ bytes: UnsafeRawBufferPointer, after scanStart: Int) -> Bool {
        var index = bytes.count - 2
        while index > scanStart {
            if bytes[index + 1] == 0xD9, bytes[index] == 0xFF { return true }
            index -= 1
        }
        return false
    }

    private static func startsWith(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int, _ prefix: String) -> Bool {
        let prefixBytes = Array(prefix.utf8)
        guard end - offset >= prefixBytes.count else { return false }
        return bytes[offset..<offset + prefixBytes.count].elementsEqual(prefixBytes)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
