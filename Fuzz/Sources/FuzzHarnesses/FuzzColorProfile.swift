import Foundation
import FuzzSupport
@testable import WebImage

/// Colour descriptions from any bytes, read and applied end to end: the first byte picks where they go.
/// - 0: an ICC profile given to ``ColorProfile/init(icc:)``; a profile that opens tags a small image, which is
///   written as PNG (its `iCCP`), read back and converted to sRGB and to Display P3.
/// - 1: the data of a PNG `iCCP` chunk (name, method, zlib stream), decoded.
/// - 2: a JPEG's APP2 `ICC_PROFILE` segments: the rest split into pieces of the length the second byte gives,
///   numbered by the third byte's bits, decoded and read for properties.
/// - 3: PNG `cICP` code points (the next four bytes), decoded.
/// Every path must end in an image or a typed error, never a crash, a leak or a read out of bounds.
func fuzzColorProfile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard count > 1, let start else { return 0 }
    let mode = start[0] % 4
    let rest = Data(UnsafeBufferPointer(start: start + 1, count: count - 1))
    switch mode {
    case 0:
        guard let profile = ColorProfile(icc: rest), var image = ColorFuzzing.smallImage else { return 0 }
        image.colorProfile = profile
        guard let png = try? ImageCoders.shared.encode(image, as: .png) else { return 0 }
        ColorFuzzing.decodeEveryWay(png)
    case 1:
        ColorFuzzing.decodeEveryWay(ColorFuzzing.png(inserting: "iCCP", rest))
    case 2:
        guard rest.count > 2 else { return 0 }
        let pieceLength = max(1, Int(rest[rest.startIndex]))
        let numbering = rest[rest.startIndex + 1]
        let profile = rest.dropFirst(2)
        var segments = Data()
        let pieces = stride(from: 0, to: profile.count, by: pieceLength).map { profile.dropFirst($0).prefix(pieceLength) }
        for (index, piece) in pieces.enumerated().prefix(255) {
            let length = 16 + piece.count
            let sequence = numbering & 1 == 0 ? UInt8(index + 1) : UInt8(truncatingIfNeeded: index * Int(numbering))
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            segments += Array("ICC_PROFILE".utf8) + [0, sequence, UInt8(clamping: pieces.count)]
            segments += piece
        }
        let jpeg = ColorFuzzing.jpeg
        ColorFuzzing.decodeEveryWay(jpeg.prefix(2) + segments + jpeg.dropFirst(2))
    default:
        ColorFuzzing.decodeEveryWay(ColorFuzzing.png(inserting: "cICP", rest.prefix(4)))
    }
    return 0
}

enum ColorFuzzing {
    /// An 8×8 picture; always made (its 256 bytes are exactly what the initialiser asks for).
    static let smallImage: Image? = {
        var bytes: [UInt8] = []
        for index in 0..<64 { bytes += [UInt8(index * 4), UInt8(255 - index * 4), UInt8(index * 7 & 255), 255] }
        return (try? PixelBuffer(width: 8, height: 8, rgba: bytes)).map { Image(pixels: $0) }
    }()
    // Kept as byte arrays: a `Data` held by a global is reported by LeakSanitizer (RELIABILITY.md).
    static let plainPNGBytes = encoded(as: .png)
    static let jpegBytes = encoded(as: .jpeg)

    private static func encoded(as format: ImageFormat) -> [UInt8] {
        guard let smallImage, let data = try? ImageCoders.shared.encode(smallImage, as: format) else { return [] }
        return Array(data)
    }
    static var plainPNG: Data { Data(plainPNGBytes) }
    static var jpeg: Data { Data(jpegBytes) }

    /// The small PNG with a chunk of `type` holding `data` right after IHDR (its CRC computed).
    static func png(inserting type: String, _ data: Data) -> Data {
        guard plainPNGBytes.count > 33 else { return Data() }
        let typeAndData = Data(type.utf8) + data
        var chunk = bigEndian(UInt32(data.count)) + typeAndData
        chunk += bigEndian(typeAndData.withUnsafeBytes { CRC32.checksum($0) })
        return plainPNG.prefix(33) + chunk + plainPNG.dropFirst(33)
    }

    static func decodeEveryWay(_ data: Data) {
        _ = try? ImageCoders.shared.properties(of: data)
        for handling in [DecodeOptions.ColorHandling.sRGB, .displayP3, .original] {
            guard let image = try? ImageCoders.shared.decode(data, options: DecodeOptions(colorHandling: handling)) else {
                continue
            }
            // What is carried must be writable again.
            if handling == .original { _ = try? ImageCoders.shared.encode(image, as: .webp) }
        }
    }

    private static func bigEndian(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
