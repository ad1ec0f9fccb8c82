import Foundation
import Testing
@testable import WebImage

@Suite struct WebPEncoderTests {
    /// A smooth, photo-like pattern (lossy codecs do well on it) with an alpha ramp and a fully transparent block.
    static func smooth(width: Int, height: Int, alpha: Bool, shift: Int = 0) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let a: UInt8 = !alpha ? 255 : (x < 4 && y < 4 ? 0 : UInt8(min(255, 40 + (x + y) * 3)))
                bytes += [UInt8((x * 4 + shift) % 256), UInt8((y * 5 + shift) % 256), UInt8((x + y) * 2 % 256), a]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    private func chunkType(_ webp: Data) -> String {
        String(decoding: webp[webp.startIndex + 12..<webp.startIndex + 16], as: UTF8.self)
    }

    @Test(arguments: [false, true])
    func losslessRoundTripIsExact(alpha: Bool) throws {
        let pixels = try Self.smooth(width: 41, height: 29, alpha: alpha)
        let webp = try WebPCoder().encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(webp) == .webp)
        #expect(chunkType(webp) == "VP8L")
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha == alpha)
    }

    @Test func lossyRoundTripIsClose() throws {
        let pixels = try Self.smooth(width: 64, height: 48, alpha: false)
        let webp = try WebPCoder().encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(quality: 0.9))
        #expect(chunkType(webp) == "VP8 ")
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.size == pixels.size)
        #expect(PixelComparison.psnr(decoded.pixels.bytes, pixels.bytes) >= 35)
        #expect(!decoded.hasAlpha)
    }

    @Test func lossyKeepsAlphaExactly() throws {
        let pixels = try Self.smooth(width: 64, height: 48, alpha: true)
        let webp = try WebPCoder().encode(Image(pixels: pixels), as: .webp, options: EncodeOptions(quality: 0.8))
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.hasAlpha)
        let source = pixels.bytes, result = decoded.pixels.bytes
        #expect(PixelComparison.psnr(result, source, channels: [3]) == .infinity)
        // Colour is compared where it is clearly visible: under low alpha the encoder may change it freely.
        let visible = source.indices.filter { source[$0 | 3] > 100 }
        let difference = visible.map { abs(Int(result[$0]) - Int(source[$0])) }.max() ?? 0
        #expect(difference <= 24)
    }

    @Test func lowerQualityMakesSmallerFiles() throws {
        let image = Image(pixels: try Self.smooth(width: 96, height: 96, alpha: false))
        let small = try WebPCoder().encode(image, as: .webp, options: EncodeOptions(quality: 0.2))
        let large = try WebPCoder().encode(image, as: .webp, options: EncodeOptions(quality: 0.95))
        #expect(small.count < large.count)
    }

    @Test func animationKeepsFramesDurationsAndLoopCount() throws {
        let frames = try [0, 80, 160].map { try Self.smooth(width: 24, height: 16, alpha: true, shift: $0) }
        let durations = [0.1, 0.25, 0.04]
        let image = Image(frames: zip(frames, durations).map { ImageFrame(pixels: $0, duration: $1) }, loopCount: 5)
        let webp = try WebPCoder().encode(image, as: .webp, options: EncodeOptions(lossless: true))
        #expect(chunkType(webp) == "VP8X")
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.frames.count == 3)
        #expect(decoded.frames.map(\.duration) == durations)
        #expect(decoded.loopCount == 5)
        for index in 0..<3 {
            #expect(decoded.frames[index].pixels.bytes == frames[index].bytes, "frame \(index)")
        }
    }

    @Test func lossyAnimationStaysClose() throws {
        let frames = try [0, 60].map { try Self.smooth(width: 48, height: 32, alpha: false, shift: $0) }
        let image = Image(frames: frames.map { ImageFrame(pixels: $0, duration: 0.5) }, loopCount: 0)
        let webp = try WebPCoder().encode(image, as: .webp, options: EncodeOptions(quality: 0.9))
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.frames.count == 2)
        #expect(decoded.loopCount == 0)
        #expect(decoded.frames.map(\.duration) == [0.5, 0.5])
        for index in 0..<2 {
            #expect(PixelComparison.psnr(decoded.frames[index].pixels.bytes, frames[index].bytes) >= 32)
        }
    }

    @Test func fixtureAnimationSurvivesARoundTrip() throws {
        let original = try ImageCoders.shared.decode(Fixtures.data("webp/animated.webp"))
        let webp = try ImageCoders.shared.encode(original, as: .webp, options: EncodeOptions(lossless: true))
        let again = try ImageCoders.shared.decode(webp)
        #expect(again.frames.count == 3)
        #expect(again.loopCount == 3)
        #expect(again.frames.map(\.duration) == [0.1, 0.2, 0.3])
        for index in 0..<3 {
            #expect(again.frames[index].pixels.bytes == original.frames[index].pixels.bytes, "frame \(index)")
        }
    }

    @Test func firstFrameOnlyWritesAStillImage() throws {
        let original = try WebPCoder().decode(Fixtures.data("webp/animated.webp"), options: DecodeOptions())
        let webp = try WebPCoder().encode(original, as: .webp, options: EncodeOptions(lossless: true, firstFrameOnly: true))
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels.bytes == original.pixels.bytes)
    }

    @Test func maxPixelSizeScalesEveryFrame() throws {
        let original = try WebPCoder().decode(Fixtures.data("webp/animated.webp"), options: DecodeOptions())
        let webp = try WebPCoder().encode(original, as: .webp, options: EncodeOptions(lossless: true, maxPixelSize: 16))
        let decoded = try WebPCoder().decode(webp, options: DecodeOptions())
        #expect(decoded.frames.count == 3)
        #expect(decoded.frames.allSatisfy { $0.pixels.size == PixelSize(width: 16, height: 16) })
    }

    @Test func durationsAreStoredInWholeMilliseconds() {
        #expect(WebPAnimationEncoder.milliseconds(0.1) == 100)
        #expect(WebPAnimationEncoder.milliseconds(0.0004) == 1)
        #expect(WebPAnimationEncoder.milliseconds(0) == 100)
        #expect(WebPAnimationEncoder.milliseconds(.nan) == 100)
        #expect(WebPAnimationEncoder.milliseconds(1e9) == (1 << 24) - 1)
    }

    @Test func oversizedImagesAndOtherFormatsAreRefused() throws {
        let wide = Image(pixels: try PixelBuffer(width: 16_384, height: 1))
        #expect(throws: ImageError(.imageTooLarge, "WebP: 16384x1 is over the 16383-pixel side limit")) {
            try WebPCoder().encode(wide, as: .webp, options: EncodeOptions())
        }
        #expect(throws: ImageError.self) {
            try WebPCoder().encode(Image(pixels: try PixelBuffer(width: 1, height: 1)), as: .png, options: EncodeOptions())
        }
    }
}
