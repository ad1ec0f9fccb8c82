import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// The fixtures (see Fixtures/README.md) and the comparisons the tests share.
enum AVIFFixtures {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    /// Every AVIF fixture, for the tests that hold for all of them.
    static let allAVIF = [
        "rgb8-lossless.avif", "rgba8-lossless.avif", "rgb10.avif", "rgba12.avif", "irot1.avif", "imir1.avif",
        "irot3-imir0.avif", "irot1-imir0.avif", "exif6.avif", "exif8-only.avif", "sequence.avif",
    ]

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Raw RGBA8 written by Pillow (from the source PNGs or avifdec's output).
    static func rgba(_ name: String) throws -> [UInt8] {
        try [UInt8](data(name))
    }

    /// The largest difference of any channel of any pixel.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        precondition(a.count == b.count)
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Peak signal-to-noise ratio in dB over the R, G and B channels.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var sum = 0.0, count = 0.0
        for index in a.indices where index % 4 != 3 {
            let difference = Double(a[index]) - Double(b[index])
            sum += difference * difference
            count += 1
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / count))
    }

    /// A copy of `data` whose first `ispe` box declares `width` × `height` (the rest of the file untouched).
    static func withImageSpatialExtents(_ data: Data, width: UInt32, height: UInt32) throws -> Data {
        var bytes = [UInt8](data)
        let tag = Array("ispe".utf8)
        let start = try #require((0..<(bytes.count - 16)).first { Array(bytes[$0..<$0 + 4]) == tag })
        for (offset, value) in [(8, width), (12, height)] {
            for byte in 0..<4 { bytes[start + offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
        }
        return Data(bytes)
    }
}
