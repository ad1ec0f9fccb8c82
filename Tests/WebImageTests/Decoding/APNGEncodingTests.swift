import Foundation
import Testing
@testable import WebImage

/// Animated images written as APNG and read back: pixels, durations, loop count and the chunk layout.
@Suite struct APNGEncodingTests {
    /// Frame `number` of a test animation: a pattern that differs per frame, with alpha when `transparent`.
    static func frame(_ number: Int, width: Int = 23, height: Int = 17, transparent: Bool) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let alpha: UInt8 = transparent ? UInt8(truncatingIfNeeded: x * 9 + y * 5 + number * 40) : 255
                bytes += [UInt8(truncatingIfNeeded: x * 11 + number * 50), UInt8(truncatingIfNeeded: y * 15),
                          UInt8(truncatingIfNeeded: x * y + number), alpha]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    static func animation(transparent: [Bool], durations: [Double], loopCount: Int) throws -> Image {
        let frames = try zip(transparent, durations).enumerated().map { number, pair in
            ImageFrame(pixels: try frame(number, transparent: pair.0), duration: pair.1)
        }
        return Image(frames: frames, loopCount: loopCount)
    }

    /// The chunk types of `png` in order.
    static func chunkTypes(_ png: Data) throws -> [String] {
        try png.withUnsafeBytes { bytes in
            var reader = try PNGChunkReader(bytes)
            var types: [String] = []
            while !reader.isAtEnd { types.append(try reader.next().type.description) }
            return types
        }
    }

    @Test(arguments: [false, true])
    func roundTripKeepsEveryFramePixelForPixel(transparent: Bool) throws {
        let image = try Self.animation(transparent: [transparent, transparent, transparent],
                                       durations: [0.1, 0.25, 1.5], loopCount: 3)
        let png = try ImageCoders.shared.encode(image, as: .png)
        #expect(ImageFormat.detect(png) == .png)
        #expect(png[png.startIndex + 25] == (transparent ? 6 : 2))  // IHDR colour type: RGBA or RGB
        let decoded = try ImageCoders.shared.decode(png)
        #expect(decoded.frames.count == 3)
        #expect(decoded.frames.map(\.pixels.bytes) == image.frames.map(\.pixels.bytes))
        #expect(decoded.frames.map(\.duration) == [0.1, 0.25, 1.5])
        #expect(decoded.loopCount == 3)
        #expect(decoded.hasAlpha == transparent)
    }

    @Test func oneTransparentFrameGivesEveryFrameAnAlphaChannel() throws {
        let image = try Self.animation(transparent: [false, true], durations: [0.2, 0.2], loopCount: 0)
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions())
        #expect(png[png.startIndex + 25] == 6)
        let decoded = try PNGCoder().decode(png, options: DecodeOptions())
        #expect(decoded.frames.map(\.pixels.bytes) == image.frames.map(\.pixels.bytes))
        #expect(decoded.loopCount == 0)
    }

    @Test func layoutHasTheDefaultImageAsFirstFrameAndSequencedFrameData() throws {
        let image = try Self.animation(transparent: [true, true, true], durations: [0.1, 0.1, 0.1], loopCount: 0)
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions())
        let types = try Self.chunkTypes(png)
        #expect(types.first == "IHDR")
        #expect(types.last == "IEND")
        // acTL, then frame 0's fcTL before the IDAT data; each later frame an fcTL and fdAT chunks.
        let acTL = try #require(types.firstIndex(of: "acTL"))
        let firstControl = try #require(types.firstIndex(of: "fcTL"))
        let firstData = try #require(types.firstIndex(of: "IDAT"))
        #expect(acTL < firstControl && firstControl < firstData)
        #expect(types.filter { $0 == "fcTL" }.count == 3)
        #expect(types.contains("fdAT"))
        let file = try png.withUnsafeBytes { bytes in
            try APNGFile(bytes, limits: .default, keepingFirstFrameOnly: false)
        }
        #expect(file.frameCount == 3)
        #expect(file.defaultImageIsFirstFrame)
        #expect(file.frames.allSatisfy { $0.control.disposal == .none && $0.control.blend == .source })
    }

    @Test func largeFramesSpanSeveralDataChunks() throws {
        // Noise does not compress: 300x200 RGBA is 240 KB per frame, more than one IDAT chunk from libspng.
        var state: UInt32 = 1
        let frames = try (0..<2).map { _ in
            let bytes = (0..<(300 * 200 * 4)).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            return ImageFrame(pixels: try PixelBuffer(width: 300, height: 200, rgba: bytes), duration: 0.5)
        }
        let image = Image(frames: frames, loopCount: 1)
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions())
        let types = try Self.chunkTypes(png)
        #expect(types.filter { $0 == "IDAT" }.count > 1)
        #expect(types.filter { $0 == "fdAT" }.count > 1)
        let decoded = try PNGCoder().decode(png, options: DecodeOptions())
        #expect(decoded.frames.map(\.pixels.bytes) == frames.map(\.pixels.bytes))
        #expect(decoded.loopCount == 1)
    }

    @Test func firstFrameOnlyWritesAStillPNG() throws {
        let image = try Self.animation(transparent: [true, false], durations: [0.1, 0.1], loopCount: 0)
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions(firstFrameOnly: true))
        #expect(!(try Self.chunkTypes(png)).contains("acTL"))
        let decoded = try PNGCoder().decode(png, options: DecodeOptions())
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels.bytes == image.frames[0].pixels.bytes)
    }

    @Test func maxPixelSizeAppliesToEveryFrame() throws {
        let image = try Self.animation(transparent: [false, false], durations: [0.1, 0.2], loopCount: 0)
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions(maxPixelSize: 10))
        let decoded = try PNGCoder().decode(png, options: DecodeOptions())
        #expect(decoded.frames.count == 2)
        #expect(decoded.frames.allSatisfy { $0.pixels.size == PixelSize(width: 10, height: 7) })
    }

    @Test func animatedGIFConvertsToAPNGWithItsTiming() throws {
        let gif = try ImageCoders.shared.decode(Fixtures.data("gif/delays.gif"))
        let png = try ImageCoders.shared.encode(gif, as: .png)
        let decoded = try ImageCoders.shared.decode(png)
        #expect(decoded.frames.map(\.pixels.bytes) == gif.frames.map(\.pixels.bytes))
        #expect(decoded.frames.map(\.duration) == gif.frames.map(\.duration))
        #expect(decoded.loopCount == gif.loopCount)
    }

    @Test func delaysAreStoredInTheFinestUnitThatFits() {
        #expect(APNGEncoder.delay(0.1) == (100, 1000))
        #expect(APNGEncoder.delay(1.0 / 30) == (33, 1000))
        #expect(APNGEncoder.delay(65.535) == (65535, 1000))
        #expect(APNGEncoder.delay(70) == (7000, 100))
        #expect(APNGEncoder.delay(100_000) == (65535, 1))
        #expect(APNGEncoder.delay(0.0001) == (1, 1000))
        #expect(APNGEncoder.delay(0) == (100, 1000))
        #expect(APNGEncoder.delay(-.infinity) == (100, 1000))
        #expect(APNGEncoder.delay(.nan) == (100, 1000))
    }

    @Test func framesOfDifferentSizesAreRefused() throws {
        let frames = [ImageFrame(pixels: try Self.frame(0, transparent: false), duration: 0.1),
                      ImageFrame(pixels: try Self.frame(1, width: 5, height: 5, transparent: false), duration: 0.1)]
        #expect(throws: ImageError.self) {
            try PNGCoder().encode(Image(frames: frames), as: .png, options: EncodeOptions())
        }
    }
}
