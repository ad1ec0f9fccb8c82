import Foundation
import Testing
@testable import WebImage

/// Animated WebP decoding. animated.webp (scripts/fixtures/webp.sh) is a 32x32 canvas, loop count 3, frames of
/// 100, 200 and 300 ms built from lossless pieces, so every composited pixel is known:
/// 0: red; 1: a blue 8x8 square at (12, 12) blended over red; 2: frame 1's rectangle (8, 8, 16, 16) disposed to
/// transparent, then an opaque green 8x8 at (0, 0).
@Suite struct WebPAnimationTests {
    static let red = RGBA(255, 0, 0), blue = RGBA(0, 0, 255), green = RGBA(0, 255, 0)
    static let clear = RGBA(0, 0, 0, 0)

    static func expected(frame: Int, x: Int, y: Int) -> RGBA {
        switch frame {
        case 0: return red
        case 1: return (12..<20).contains(x) && (12..<20).contains(y) ? blue : red
        default:
            if x < 8 && y < 8 { return green }
            return (8..<24).contains(x) && (8..<24).contains(y) ? clear : red
        }
    }

    private func decode(_ data: Data, _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try WebPCoder().decode(data, options: options)
    }

    @Test func decodesEveryCompositedFrame() throws {
        let image = try decode(Fixtures.data("webp/animated.webp"))
        #expect(image.frames.count == 3)
        #expect(image.isAnimated)
        #expect(image.size == PixelSize(width: 32, height: 32))
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(image.loopCount == 3)
        #expect(image.hasAlpha)
        #expect(image.format == .webp)
        for (index, frame) in image.frames.enumerated() {
            for y in 0..<32 {
                for x in 0..<32 where frame.pixels[x, y] != Self.expected(frame: index, x: x, y: y) {
                    Issue.record("frame \(index) pixel (\(x), \(y)) is \(frame.pixels[x, y])")
                }
            }
        }
        #expect(image.memoryCost == 3 * 32 * 32 * 4)
    }

    @Test func firstFrameOnlyStopsAfterTheFirstFrame() throws {
        let image = try decode(Fixtures.data("webp/animated.webp"), DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.pixels.bytes == (try PixelBuffer(width: 32, height: 32, filledWith: Self.red)).bytes)
    }

    @Test func thumbnailShrinksEveryFrame() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let image = try decode(Fixtures.data("webp/animated.webp"), options)
        #expect(image.frames.count == 3)
        #expect(image.flags.contains(.thumbnail))
        #expect(image.frames.allSatisfy { $0.pixels.size == PixelSize(width: 16, height: 16) })
        #expect(image.frames[1].pixels[7, 7] == Self.blue)   // source (14, 14)
        #expect(image.frames[2].pixels[1, 1] == Self.green)  // source (2, 2)
        #expect(image.frames[2].pixels[6, 6] == Self.clear)  // source (12, 12), inside the hole
        #expect(image.frames[2].pixels[14, 14] == Self.red)
    }

    @Test func containerReportsItsAnimationParameters() throws {
        let data = try Fixtures.data("webp/animated.webp")
        try data.withUnsafeBytes { bytes in
            let container = try WebPContainer(bytes)
            #expect(container.frameCount == 3)
            #expect(container.loopCount == 3)
            #expect(container.canvasSize == PixelSize(width: 32, height: 32))
            #expect(container.backgroundColor == RGBA(255, 255, 255, 255))
            #expect(container.declaresAlpha)
        }
    }

    @Test func shortDurationsPlayAtTheDefaultSpeed() {
        #expect(WebPAnimationDecoder.duration(milliseconds: 0) == 0.1)
        #expect(WebPAnimationDecoder.duration(milliseconds: 10) == 0.1)
        #expect(WebPAnimationDecoder.duration(milliseconds: 11) == 0.011)
        #expect(WebPAnimationDecoder.duration(milliseconds: 250) == 0.25)
    }

    @Test func frameLimitIsCheckedBeforeDecoding() throws {
        let data = try Fixtures.data("webp/animated.webp")
        let twoFrames = DecodeOptions(limits: DecodeLimits(maxFrames: 2))
        #expect(throws: ImageError(.imageTooLarge, "3 frames, over the limit of 2")) { try decode(data, twoFrames) }
        let onlyFirst = DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 1))
        #expect(try decode(data, onlyFirst).frames.count == 1)
        let totalPixels = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 3 * 32 * 32 - 1))
        #expect(throws: ImageError.self) { try decode(data, totalPixels) }
    }

    @Test func canvasBombIsRefused() throws {
        // 60000 x 60000 canvas (3.6 GP) holding the same small frames.
        let data = try Fixtures.data("webp/bomb_canvas60000.webp")
        #expect(throws: ImageError.self) { try decode(data) }
        do {
            _ = try decode(data)
        } catch let error as ImageError {
            #expect(error.code == .imageTooLarge)
        }
    }

    /// animated_1x1.webp (two 1x1 frames) rebuilt with its first ANMF chunk repeated `count` times.
    static func repeatingFrames(_ count: Int) throws -> Data {
        let bytes = [UInt8](try Fixtures.data("webp/animated_1x1.webp"))
        let marker = Array("ANMF".utf8)
        guard let start = (12..<bytes.count - 4).first(where: { Array(bytes[$0..<$0 + 4]) == marker }) else {
            throw ImageError(.badImageData, "no ANMF chunk in the fixture")
        }
        let length = Int(bytes[start + 4]) | Int(bytes[start + 5]) << 8 | Int(bytes[start + 6]) << 16
            | Int(bytes[start + 7]) << 24
        let end = start + 8 + length + (length & 1)
        var output = Array(bytes[..<start])
        for _ in 0..<count { output += bytes[start..<end] }
        let riffSize = UInt32(output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * index)) }
        return Data(output)
    }

    @Test func repeatedFramesDecode() throws {
        let image = try decode(try Self.repeatingFrames(4))
        #expect(image.frames.count == 4)
        #expect(image.frames.allSatisfy { $0.pixels[0, 0] == RGBA(9, 8, 7) && $0.duration == 0.05 })
        #expect(image.loopCount == 0)
    }

    @Test func frameCountBombIsRefused() throws {
        // 10 001 frames of 1x1: one more than the default frame limit.
        let data = try Self.repeatingFrames(10_001)
        #expect(throws: ImageError(.imageTooLarge, "10001 frames, over the limit of 10000")) { try decode(data) }
    }
}
