import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// Encoding, checked by decoding the result (the decoder is checked against avifdec in the other suites).
@Suite struct AVIFEncodeTests {
    let coder = AVIFCoder()

    func source(_ name: String, width: Int = 48, height: Int = 32) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, rgba: try AVIFFixtures.rgba(name))
    }

    /// Smooth gradients with an alpha ramp: what lossy 4:2:0 is meant for (the fixtures' noisy blue channel
    /// loses its detail to chroma subsampling, in avifenc as here: 17 dB).
    func smooth(width: Int = 64, height: Int = 48, shift: Int = 0, alpha: Bool = false) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height) { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    bytes[offset] = UInt8((x + shift) * 255 / (width + shift))
                    bytes[offset + 1] = UInt8(y * 255 / height)
                    bytes[offset + 2] = UInt8(128 + (x - y) / 2)
                    bytes[offset + 3] = alpha ? UInt8(x * 255 / (width - 1)) : 255
                }
            }
        }
    }

    @Test(arguments: [("src-rgb.rgba", false), ("src-rgba.rgba", true)])
    func losslessRoundTripIsExact(name: String, alpha: Bool) throws {
        let pixels = try source(name)
        let data = try coder.encode(Image(pixels: pixels), as: .avif, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(data) == .avif)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.hasAlpha == alpha)
        #expect(decoded.pixels.bytes == pixels.bytes)
    }

    @Test func lossyFollowsQuality() throws {
        let image = Image(pixels: try smooth())
        let good = try coder.encode(image, as: .avif, options: EncodeOptions(quality: 0.9))
        let poor = try coder.encode(image, as: .avif, options: EncodeOptions(quality: 0.1))
        #expect(poor.count < good.count)
        let decoded = try coder.decode(good, options: DecodeOptions())
        #expect(!decoded.hasAlpha && decoded.size == image.size)
        #expect(AVIFFixtures.psnr(decoded.pixels.bytes, image.pixels.bytes) > 35)
    }

    @Test func lossyKeepsAlpha() throws {
        let pixels = try smooth(alpha: true)
        let data = try coder.encode(Image(pixels: pixels), as: .avif, options: EncodeOptions(quality: 0.9))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.hasAlpha)
        let alphaOut = decoded.pixels.bytes.enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
        let alphaIn = pixels.bytes.enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
        #expect(AVIFFixtures.maxDifference(alphaOut, alphaIn) <= 8)
    }

    func animation() throws -> Image {
        let frames = try (0..<3).map { index in
            ImageFrame(pixels: try source("src-frame\(index).rgba", width: 32, height: 24),
                       duration: [0.1, 0.25, 0.04][index])
        }
        return Image(frames: frames, loopCount: 0, format: .unknown)
    }

    @Test func animationBecomesASequence() throws {
        let image = try animation()
        let data = try coder.encode(image, as: .avif, options: EncodeOptions(lossless: true))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.frames.count == 3 && decoded.loopCount == 0 && !decoded.hasAlpha)
        #expect(decoded.frames.map(\.duration) == [0.1, 0.25, 0.04])
        #expect(decoded.frames.map(\.pixels.bytes) == image.frames.map(\.pixels.bytes))
        #expect(try coder.properties(of: data).frameDurations == [0.1, 0.25, 0.04])
    }

    @Test func lossyAnimation() throws {
        let frames = try (0..<3).map { ImageFrame(pixels: try smooth(shift: 16 * $0), duration: 0.05) }
        let image = Image(frames: frames, loopCount: 0)
        let decoded = try coder.decode(try coder.encode(image, as: .avif, options: EncodeOptions()), options: DecodeOptions())
        #expect(decoded.frames.count == 3 && decoded.frames.map(\.duration) == [0.05, 0.05, 0.05])
        for (frame, original) in zip(decoded.frames, image.frames) {
            #expect(AVIFFixtures.psnr(frame.pixels.bytes, original.pixels.bytes) > 35)
        }
    }

    @Test func firstFrameOnlyAndMaxPixelSize() throws {
        let options = EncodeOptions(firstFrameOnly: true, maxPixelSize: 16)
        let decoded = try coder.decode(try coder.encode(try animation(), as: .avif, options: options),
                                       options: DecodeOptions())
        #expect(decoded.frames.count == 1 && decoded.size == PixelSize(width: 16, height: 12))
    }

    @Test func otherFormatsAreRefused() throws {
        let image = Image(pixels: try source("src-rgb.rgba"))
        #expect(errorCode { _ = try coder.encode(image, as: .png, options: EncodeOptions()) }
                == .unsupportedFormat)
    }
}
