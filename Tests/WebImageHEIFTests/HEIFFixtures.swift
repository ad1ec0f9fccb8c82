import Foundation
import WebImage

/// The fixtures (see Fixtures/README.md) and pixel comparisons shared by the HEIF tests.
enum HEIFFixtures {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    /// Every HEIF file among the fixtures that has a still primary image.
    static let decodable = ["photo.heic", "alpha.heic", "rotated.heic", "thumb.heic", "deep.heic", "premultiplied.heic", "sequence-with-primary.heics"]

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// A reference decode written by heif-convert (libheif's own tool), read with the core PNG coder.
    static func reference(_ name: String) throws -> PixelBuffer {
        try PNGCoder().decode(data(name), options: DecodeOptions()).pixels
    }

    /// Peak signal-to-noise ratio over the given channels (R, G, B by default); infinity when identical.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer, channels: [Int] = [0, 1, 2]) -> Double {
        precondition(a.size == b.size)
        let x = a.bytes, y = b.bytes
        var sum = 0.0, count = 0
        for pixel in stride(from: 0, to: x.count, by: 4) {
            for channel in channels {
                let d = Double(x[pixel + channel]) - Double(y[pixel + channel])
                sum += d * d
                count += 1
            }
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(count)))
    }

    /// `data` with every `ispe` box declaring `width` × `height` (the header of a decompression bomb).
    static func withDeclaredSize(_ data: Data, width: UInt32, height: UInt32) -> Data {
        var bytes = [UInt8](data)
        let tag = Array("ispe".utf8)
        var index = 0
        while index + 16 <= bytes.count {
            if Array(bytes[index..<index + 4]) == tag {
                for (offset, value) in [(8, width), (12, height)] {
                    for byte in 0..<4 { bytes[index + offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
                }
            }
            index += 1
        }
        return Data(bytes)
    }
}
