import Foundation
import Testing
@testable import WebImage

/// Pixels of every PNG flavour against the expected RGBA written by scripts/fixtures/png.sh from the samples it
/// encoded (not from any decoder).
@Suite struct PNGDecoderTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let hasAlpha: Bool
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "gray1", width: 16, height: 4, hasAlpha: false),
        Case(name: "gray2", width: 16, height: 4, hasAlpha: false),
        Case(name: "gray4", width: 16, height: 4, hasAlpha: false),
        Case(name: "gray8", width: 16, height: 4, hasAlpha: false),
        Case(name: "gray16", width: 16, height: 4, hasAlpha: false),
        Case(name: "gray_alpha8", width: 16, height: 4, hasAlpha: true),
        Case(name: "gray_alpha16", width: 16, height: 4, hasAlpha: true),
        Case(name: "rgb8", width: 16, height: 4, hasAlpha: false),
        Case(name: "rgb16", width: 16, height: 4, hasAlpha: false),
        Case(name: "rgba8", width: 16, height: 4, hasAlpha: true),
        Case(name: "rgba16", width: 16, height: 4, hasAlpha: true),
        Case(name: "gray8_trns", width: 16, height: 4, hasAlpha: true),
        Case(name: "rgb8_trns", width: 16, height: 4, hasAlpha: true),
        Case(name: "palette4", width: 16, height: 4, hasAlpha: false),
        Case(name: "palette8_trns", width: 16, height: 4, hasAlpha: true),
        Case(name: "interlaced_rgba8", width: 13, height: 11, hasAlpha: true),
        Case(name: "interlaced_rgb16", width: 13, height: 11, hasAlpha: false),
        Case(name: "interlaced_gray1", width: 13, height: 11, hasAlpha: false),
        Case(name: "bands64x32", width: 64, height: 32, hasAlpha: false),
    ]

    @Test(arguments: cases)
    func decodesExactPixels(_ fixture: Case) throws {
        let image = try PNGCoder().decode(Fixtures.data("png/\(fixture.name).png"), options: DecodeOptions())
        let expected = try Fixtures.data("png/\(fixture.name).rgba")
        #expect(image.size == PixelSize(width: fixture.width, height: fixture.height))
        #expect(image.pixels.bytes == Array(expected))
        #expect(image.hasAlpha == fixture.hasAlpha)
        #expect(image.format == .png)
        #expect(image.frames.count == 1)
        #expect(image.loopCount == 1)
        #expect(image.orientation == .up)
        #expect(!image.flags.contains(.thumbnail))
    }

    @Test func sixteenBitSamplesAreRoundedNotTruncated() throws {
        // The first sample of gray16 is 0x10FF: 4351 × 255 / 65535 = 16.93, so 17 (dropping the low byte gives 16).
        let image = try PNGCoder().decode(Fixtures.data("png/gray16.png"), options: DecodeOptions())
        #expect(image.pixels[0, 0] == RGBA(17, 17, 17, 255))
    }

    @Test func reductionToEightBitsRoundsEveryValue() {
        for value in 0...Int(UInt16.max) {
            let exact = Int((Double(value) * 255 / 65535).rounded())
            #expect(Int(PNGDecoder.reduceToEightBits(UInt16(value))) == exact, "value \(value)")
        }
    }

    @Test func paletteTransparencyAppliesPerEntry() throws {
        // Row 0 shows palette entries 0, 1, 2, 3, … whose tRNS alphas are 0, 64, 128, 200, then opaque.
        let image = try PNGCoder().decode(Fixtures.data("png/palette8_trns.png"), options: DecodeOptions())
        #expect((0..<5).map { image.pixels[$0, 0].a } == [0, 64, 128, 200, 255])
        #expect(image.pixels[1, 0] == RGBA(16, 239, 40, 64))
    }

    @Test func colourKeysBecomeTransparent() throws {
        let gray = try PNGCoder().decode(Fixtures.data("png/gray8_trns.png"), options: DecodeOptions())
        #expect(gray.pixels[0, 0] == RGBA(32, 32, 32, 0))  // (0 + 0) % 3 == 0: the key value 32
        #expect(gray.pixels[1, 0] == RGBA(16, 16, 16, 255))
        let rgb = try PNGCoder().decode(Fixtures.data("png/rgb8_trns.png"), options: DecodeOptions())
        #expect(rgb.pixels[4, 2] == RGBA(10, 20, 30, 0))
        #expect(rgb.pixels[5, 2] == RGBA(80, 128, 200, 255))
    }

    @Test func apngDecodesEveryFrameStartingWithItsDefaultImage() throws {
        // Pillow wrote the default image (red) as frame 0, then green and blue; more in APNGDecodingTests.
        let image = try PNGCoder().decode(Fixtures.data("png/apng.png"), options: DecodeOptions())
        let colours = [RGBA(255, 0, 0), RGBA(0, 255, 0), RGBA(0, 0, 255)]
        #expect(image.frames.count == 3)
        for (frame, colour) in zip(image.frames, colours) {
            #expect(frame.pixels.bytes == (try PixelBuffer(width: 8, height: 8, filledWith: colour)).bytes)
        }
        #expect(image.pixels.bytes == Array(try Fixtures.data("png/apng.rgba")))
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(image.loopCount == 0)
        #expect(image.hasAlpha)
    }

    @Test func exifOrientationSixTurnsThePixelsClockwise() throws {
        let stored = try PixelBuffer(width: 4, height: 2, rgba: Array(Fixtures.data("png/exif6.rgba")))
        let image = try PNGCoder().decode(Fixtures.data("png/exif6.png"), options: DecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.size == PixelSize(width: 2, height: 4))
        // Turned 90° clockwise: displayed (x, y) shows stored (y, storedHeight - 1 - x).
        for y in 0..<4 {
            for x in 0..<2 {
                #expect(image.pixels[x, y] == stored[y, 1 - x], "(\(x), \(y))")
            }
        }
    }

    @Test func rawPixelsWhenOrientationIsNotApplied() throws {
        let image = try PNGCoder().decode(Fixtures.data("png/exif6.png"), options: DecodeOptions(applyOrientation: false))
        #expect(image.orientation == .right)
        #expect(image.size == PixelSize(width: 4, height: 2))
        #expect(image.pixels.bytes == Array(try Fixtures.data("png/exif6.rgba")))
    }

    @Test func thumbnailKeepsAspectRatioAndBandColours() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let image = try PNGCoder().decode(Fixtures.data("png/bands64x32.png"), options: options)
        #expect(image.size == PixelSize(width: 16, height: 8))
        #expect(image.flags.contains(.thumbnail))
        let bands = [RGBA(255, 0, 0), RGBA(0, 255, 0), RGBA(0, 0, 255), RGBA(255, 255, 255)]
        for y in 0..<8 {
            for x in 0..<16 { #expect(image.pixels[x, y] == bands[x / 4], "(\(x), \(y))") }
        }
    }

    @Test func scaleDownLimitBoundsTheBytes() throws {
        // 64x32 RGBA is 8192 bytes; 2048 bytes allow 512 pixels: 32x16.
        let options = DecodeOptions(scaleDownLimitBytes: 2048)
        let image = try PNGCoder().decode(Fixtures.data("png/bands64x32.png"), options: options)
        #expect(image.size == PixelSize(width: 32, height: 16))
        #expect(image.pixels.byteCount <= 2048)
        #expect(image.pixels[7, 3] == RGBA(255, 0, 0))
        #expect(image.pixels[8, 3] == RGBA(0, 255, 0))
    }

    @Test func thumbnailBoxAppliesToTheOrientedSize() throws {
        // Displayed 2x4 fits a 2x2 box as 1x2.
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 2, height: 2))
        let image = try PNGCoder().decode(Fixtures.data("png/exif6.png"), options: options)
        #expect(image.size == PixelSize(width: 1, height: 2))
        #expect(image.orientation == .right)
    }

    @Test func scaleComesFromTheFileName() throws {
        let options = DecodeOptions(fileNameHint: "https://example.com/icons/bands@2x.png?v=1")
        let image = try PNGCoder().decode(Fixtures.data("png/bands64x32.png"), options: options)
        #expect(image.scale == 2)
    }

    @Test func sharedRegistryRoutesPNGHere() throws {
        let image = try ImageCoders.shared.decode(Fixtures.data("png/rgb8.png"))
        #expect(image.format == .png)
        #expect(image.pixels.bytes == Array(try Fixtures.data("png/rgb8.rgba")))
    }
}
