import Foundation
import WebImage

/// The fixtures (see Fixtures/README.md): TIFFs written by ImageMagick and Pillow, and Pillow's decode of each
/// as raw straight RGBA (`X.rgba`, page N of a multi-page file in `X.pageN.rgba`), orientation applied.
enum TIFFFixtures {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static let all = [
        "rgb.tif", "rgb-lzw.tif", "rgb-msb.tif", "rgb-tiled-deflate.tif", "rgb16.tif", "gray8.tif", "gray16.tif", "gray-alpha.tif",
        "palette.tif", "miniswhite.tif", "cmyk.tif", "cmyk16.tif", "cmyk16-tiled.tif", "jpeg.tif", "ycbcr-jpeg.tif", "alpha-associated.tif",
        "alpha-unassociated.tif", "orient5.tif", "orient6.tif", "multipage.tif",
    ]

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func reference(_ name: String, page: Int = 0) throws -> [UInt8] {
        let base = name.replacingOccurrences(of: ".tif", with: "")
        return [UInt8](try data(page == 0 ? "\(base).rgba" : "\(base).page\(page).rgba"))
    }

    /// The largest difference of any colour channel between pixels, skipping colour where both are transparent.
    static func maxColourDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var worst = 0
        for pixel in stride(from: 0, to: min(a.count, b.count), by: 4) {
            worst = max(worst, abs(Int(a[pixel + 3]) - Int(b[pixel + 3])))
            if a[pixel + 3] == 0 && b[pixel + 3] == 0 { continue }
            for channel in 0..<3 { worst = max(worst, abs(Int(a[pixel + channel]) - Int(b[pixel + channel]))) }
        }
        return worst
    }

    /// The first pixel where `pixels` differs from the straight-alpha `reference` by more than libtiff's
    /// premultiplied raster allows: alpha exact, colour exact where opaque and within 255 / alpha elsewhere
    /// (half a step each way of rounding); `nil` when there is none.
    static func alphaMismatch(_ pixels: [UInt8], _ reference: [UInt8]) -> String? {
        guard pixels.count == reference.count else { return "\(pixels.count) bytes vs \(reference.count)" }
        for pixel in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(reference[pixel + 3])
            guard Int(pixels[pixel + 3]) == alpha else { return "pixel \(pixel / 4): alpha \(pixels[pixel + 3]) vs \(alpha)" }
            guard alpha > 0 else { continue }
            let bound = alpha == 255 ? 0 : 255 / alpha + 1
            for channel in 0..<3 where abs(Int(pixels[pixel + channel]) - Int(reference[pixel + channel])) > bound {
                return "pixel \(pixel / 4) channel \(channel): \(pixels[pixel + channel]) vs \(reference[pixel + channel]) at alpha \(alpha)"
            }
        }
        return nil
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for index in a.indices where index % 4 != 3 {
            let d = Double(a[index]) - Double(b[index])
            sum += d * d
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(a.count / 4 * 3)))
    }

    /// The byte offset of the first directory and the little-endian readers for it (the fixtures are "II").
    static func firstDirectory(_ bytes: [UInt8]) -> Int {
        precondition(bytes[0] == 0x49 && bytes[1] == 0x49, "little-endian fixtures only")
        return Int(le32(bytes, 4))
    }

    static func le16(_ bytes: [UInt8], _ offset: Int) -> UInt32 { UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 }
    static func le32(_ bytes: [UInt8], _ offset: Int) -> UInt32 { le16(bytes, offset) | le16(bytes, offset + 2) << 16 }

    /// `data` with the first directory's ImageWidth and ImageLength tags set to `size` (a bomb's header).
    static func withDeclaredSize(_ data: Data, _ size: UInt32) -> Data {
        var bytes = [UInt8](data)
        let directory = firstDirectory(bytes)
        for entry in 0..<Int(le16(bytes, directory)) {
            let at = directory + 2 + entry * 12
            let tag = le16(bytes, at), type = le16(bytes, at + 2)
            guard tag == 256 || tag == 257 else { continue }
            bytes[at + 2] = 4; bytes[at + 3] = 0  // LONG, whatever it was
            _ = type
            for byte in 0..<4 { bytes[at + 8 + byte] = UInt8(truncatingIfNeeded: size >> (8 * byte)) }
        }
        return Data(bytes)
    }

    /// `data` whose first directory names itself as the next one: an endless chain of pages.
    static func withDirectoryLoop(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        let directory = firstDirectory(bytes)
        let next = directory + 2 + Int(le16(bytes, directory)) * 12
        for byte in 0..<4 { bytes[next + byte] = UInt8(truncatingIfNeeded: directory >> (8 * byte)) }
        return Data(bytes)
    }
}
