import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

@Suite struct JXLEncodeTests {
    /// A picture with every kind of pixel: gradients, and alpha from clear to opaque when `alpha`.
    static func picture(width: Int = 37, height: Int = 23, alpha: Bool, seed: Int = 0) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8((x * 7 + seed) & 255), UInt8((y * 11 + seed) & 255), UInt8((x * y + seed) & 255),
                          alpha ? UInt8((x * 255) / (width - 1)) : 255]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    @Test(arguments: [false, true])
    func losslessRoundTripsExactly(alpha: Bool) throws {
        let source = try Self.picture(alpha: alpha)
        let data = try JXLCoder().encode(Image(pixels: source), as: .jxl, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(data) == .jxl)
        let decoded = try JXLCoder().decode(data, options: DecodeOptions())
        #expect(decoded.hasAlpha == alpha)
        #expect(decoded.pixels.bytes == source.bytes)
    }

    @Test func lossyIsClose() throws {
        // Smooth gradients: lossy coding is judged on what it is for (sharp synthetic patterns lose ~22 dB in cjxl
        // itself at distance 1).
        var bytes: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { bytes += [UInt8(x * 3), UInt8(y * 5), UInt8((x + y) * 2), 255] } }
        let source = try PixelBuffer(width: 64, height: 48, rgba: bytes)
        let data = try JXLCoder().encode(Image(pixels: source), as: .jxl, options: EncodeOptions(quality: 0.9))
        let decoded = try JXLCoder().decode(data, options: DecodeOptions())
        #expect(decoded.size == source.size && !decoded.hasAlpha)
        #expect(psnr(decoded.pixels.bytes, source.bytes) >= 30)
        let small = try JXLCoder().encode(Image(pixels: source), as: .jxl, options: EncodeOptions(quality: 0.2))
        #expect(small.count < data.count)
    }

    @Test func animationKeepsFramesDurationsAndLoops() throws {
        let frames = try (0..<3).map {
            ImageFrame(pixels: try Self.picture(alpha: true, seed: $0 * 40), duration: [0.05, 0.25, 1.5][$0])
        }
        let image = Image(frames: frames, loopCount: 3, format: .unknown, flags: .hasAlpha)
        let data = try JXLCoder().encode(image, as: .jxl, options: EncodeOptions(lossless: true))
        let decoded = try JXLCoder().decode(data, options: DecodeOptions())
        #expect(decoded.frames.count == 3 && decoded.loopCount == 3)
        #expect(decoded.frames.map(\.duration) == [0.05, 0.25, 1.5])
        for (original, copy) in zip(frames, decoded.frames) { #expect(copy.pixels.bytes == original.pixels.bytes) }
        #expect(try JXLCoder().properties(of: data) == ImageProperties(of: decoded))

        let still = try JXLCoder().encode(image, as: .jxl, options: EncodeOptions(lossless: true, firstFrameOnly: true))
        #expect(try JXLCoder().properties(of: still).frameCount == 1)
    }

    @Test func maxPixelSizeAndWrongFormat() throws {
        let image = Image(pixels: try Self.picture(width: 80, height: 40, alpha: false))
        let data = try JXLCoder().encode(image, as: .jxl, options: EncodeOptions(maxPixelSize: 20))
        #expect(try JXLCoder().properties(of: data).size == PixelSize(width: 20, height: 10))
        #expect(errorCode { _ = try JXLCoder().encode(image, as: .png, options: EncodeOptions()) } == .unsupportedFormat)
    }
}
