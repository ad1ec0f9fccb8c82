import Foundation
import Testing
@testable import WebImage

@Suite struct JPEGProgressiveEncodingTests {
    /// A 64×48 gradient: smooth, so both encodings decode close to it.
    func gradient() throws -> Image {
        let pixels = try PixelBuffer(width: 64, height: 48) { raw in
            for y in 0..<48 {
                for x in 0..<64 {
                    let offset = (y * 64 + x) * 4
                    raw[offset] = UInt8(x * 4)
                    raw[offset + 1] = UInt8(y * 5)
                    raw[offset + 2] = 128
                    raw[offset + 3] = 255
                }
            }
        }
        return Image(pixels: pixels)
    }

    func frameMarker(of data: Data) throws -> UInt8 {
        try data.withUnsafeBytes { try JPEGMarkerScanner.scan($0).frameMarker }
    }

    @Test func progressiveOptionWritesSOF2AndBaselineStaysSOF0() throws {
        let image = try gradient()
        let progressive = try ImageCoders.shared.encode(image, as: .jpeg, options: EncodeOptions(progressive: true))
        let baseline = try ImageCoders.shared.encode(image, as: .jpeg, options: EncodeOptions())
        #expect(try frameMarker(of: progressive) == 0xC2)
        #expect(try frameMarker(of: baseline) == 0xC0)
    }

    @Test func progressiveAndBaselineDecodeToTheSamePixels() throws {
        // The same quantisation and sampling: only the scan order differs, so the decoded pixels are identical.
        let image = try gradient()
        let progressive = try ImageCoders.shared.decode(
            try ImageCoders.shared.encode(image, as: .jpeg, options: EncodeOptions(progressive: true)))
        let baseline = try ImageCoders.shared.decode(
            try ImageCoders.shared.encode(image, as: .jpeg, options: EncodeOptions()))
        #expect(progressive.size == PixelSize(width: 64, height: 48))
        #expect(progressive.pixels.bytes == baseline.pixels.bytes)
    }
}
