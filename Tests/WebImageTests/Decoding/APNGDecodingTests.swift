import Foundation
import Testing
@testable import WebImage

/// Every composited APNG frame against the reference compositor of scripts/fixtures/apng.sh, plus the rules
/// themselves (blend, dispose, hidden default image, durations, loop count) checked pixel by pixel by hand.
@Suite struct APNGDecodingTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let frames: Int
        let loopCount: Int
        let hasAlpha: Bool
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "default-is-first-frame", width: 8, height: 8, frames: 3, loopCount: 0, hasAlpha: true),
        Case(name: "default-hidden", width: 8, height: 8, frames: 2, loopCount: 3, hasAlpha: true),
        Case(name: "dispose-none", width: 8, height: 8, frames: 3, loopCount: 0, hasAlpha: true),
        Case(name: "dispose-background", width: 8, height: 8, frames: 3, loopCount: 0, hasAlpha: true),
        Case(name: "dispose-previous", width: 8, height: 8, frames: 3, loopCount: 0, hasAlpha: true),
        Case(name: "dispose-previous-twice", width: 8, height: 8, frames: 4, loopCount: 0, hasAlpha: true),
        Case(name: "dispose-previous-first", width: 8, height: 8, frames: 2, loopCount: 0, hasAlpha: true),
        Case(name: "blend-source", width: 8, height: 2, frames: 2, loopCount: 0, hasAlpha: true),
        Case(name: "blend-over", width: 8, height: 2, frames: 2, loopCount: 0, hasAlpha: true),
        Case(name: "blend-over-offsets", width: 6, height: 6, frames: 3, loopCount: 0, hasAlpha: true),
        Case(name: "palette-trns", width: 6, height: 4, frames: 4, loopCount: 0, hasAlpha: true),
        Case(name: "gray-colour-key", width: 4, height: 4, frames: 2, loopCount: 0, hasAlpha: true),
        Case(name: "rgb16-interlaced", width: 7, height: 5, frames: 2, loopCount: 0, hasAlpha: false),
        Case(name: "delays", width: 2, height: 2, frames: 6, loopCount: 7, hasAlpha: true),
        Case(name: "split-chunks", width: 5, height: 5, frames: 2, loopCount: 0, hasAlpha: true),
        Case(name: "pillow", width: 6, height: 6, frames: 4, loopCount: 2, hasAlpha: true),
    ]

    @Test(arguments: cases)
    func everyFrameMatchesTheReferenceCompositor(_ fixture: Case) throws {
        let image = try APNGTesting.decode(fixture.name)
        let size = PixelSize(width: fixture.width, height: fixture.height)
        let expected = try APNGTesting.expectedFrames(fixture.name, size: size)
        #expect(expected.count == fixture.frames)
        #expect(image.frames.count == fixture.frames)
        for (number, (frame, reference)) in zip(image.frames, expected).enumerated() {
            #expect(frame.pixels.size == size, "frame \(number)")
            #expect(frame.pixels.bytes == reference, "frame \(number)")
        }
        #expect(image.loopCount == fixture.loopCount)
        #expect(image.hasAlpha == fixture.hasAlpha)
        #expect(image.isAnimated)
        #expect(image.format == .png)
        #expect(image.orientation == .up)
        #expect(!image.flags.contains(.thumbnail))
    }

    @Test func defaultImageIsTheFirstFrameWhenItsFrameControlComesFirst() throws {
        let image = try APNGTesting.decode("default-is-first-frame")
        #expect(GIFTesting.mismatch(image.frames[0].pixels) { _, _ in APNGColors.red } == nil)
        #expect(GIFTesting.mismatch(image.frames[1].pixels) { x, y in
            GIFTesting.inSquare(x, y, left: 2, top: 2, side: 4) ? APNGColors.green : APNGColors.red
        } == nil)
        #expect(GIFTesting.mismatch(image.frames[2].pixels) { x, y in
            x >= 4 ? APNGColors.blue : GIFTesting.inSquare(x, y, left: 2, top: 2, side: 4) ? APNGColors.green
                : APNGColors.red
        } == nil)
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3])
    }

    @Test func hiddenDefaultImageIsNotPartOfTheAnimation() throws {
        let image = try APNGTesting.decode("default-hidden")
        #expect(image.frames.count == 2)
        // The magenta default image shows nowhere; around the first frame's 4x3 rectangle at 1,1 is transparent.
        #expect(GIFTesting.mismatch(image.frames[0].pixels) { x, y in
            x >= 1 && x < 5 && y >= 1 && y < 4 ? APNGColors.green : APNGColors.clear
        } == nil)
        #expect(image.frames[1].pixels[4, 4] == APNGColors.blue)
        #expect(image.frames[1].pixels[2, 2] == APNGColors.green)
        #expect(image.frames[1].pixels[0, 7] == APNGColors.clear)
        #expect(image.frames.map(\.duration) == [0.25, 0.5])
        // RGB without tRNS, yet the canvas shows through: alpha is found in the pixels.
        #expect(image.hasAlpha)
    }

    @Test func disposeNoneKeepsTheFrame() throws {
        let last = try APNGTesting.decode("dispose-none").frames[2].pixels
        #expect(last[2, 2] == APNGColors.red)
        #expect(last[4, 3] == APNGColors.red)
        #expect(last[4, 4] == APNGColors.green)
        #expect(last[0, 0] == APNGColors.blue)
    }

    @Test func disposeBackgroundClearsTheRectangleToTransparent() throws {
        let image = try APNGTesting.decode("dispose-background")
        #expect(image.frames[1].pixels[3, 3] == APNGColors.red)  // shown before it is disposed of
        let last = image.frames[2].pixels
        #expect(last[2, 2] == APNGColors.clear)
        #expect(last[5, 3] == APNGColors.clear)
        #expect(last[4, 4] == APNGColors.green)
        #expect(last[7, 1] == APNGColors.blue)
    }

    @Test func disposePreviousRestoresWhatWasThere() throws {
        let image = try APNGTesting.decode("dispose-previous")
        #expect(image.frames[1].pixels[3, 3] == APNGColors.red)
        #expect(GIFTesting.mismatch(image.frames[2].pixels) { x, y in
            GIFTesting.inSquare(x, y, left: 4, top: 4, side: 4) ? APNGColors.green : APNGColors.blue
        } == nil)
        let twice = try APNGTesting.decode("dispose-previous-twice")
        #expect(GIFTesting.mismatch(twice.frames[3].pixels) { x, y in
            x < 2 && y < 2 ? APNGColors.yellow : APNGColors.blue
        } == nil)
    }

    @Test func disposePreviousOnTheFirstFrameClearsToTransparent() throws {
        let image = try APNGTesting.decode("dispose-previous-first")
        #expect(GIFTesting.mismatch(image.frames[0].pixels) { _, _ in APNGColors.red } == nil)
        #expect(GIFTesting.mismatch(image.frames[1].pixels) { x, y in
            GIFTesting.inSquare(x, y, left: 2, top: 2, side: 4) ? APNGColors.green : APNGColors.clear
        } == nil)
    }

    @Test func blendSourceReplacesAlphaAndColour() throws {
        let pixels = try APNGTesting.decode("blend-source").frames[1].pixels
        #expect(pixels[0, 0] == RGBA(200, 30, 30, 128))
        #expect(pixels[6, 0] == RGBA(200, 30, 30, 128))
        #expect(pixels[0, 1] == RGBA(10, 20, 30, 0))
        #expect(pixels[1, 1] == APNGColors.green)
    }

    @Test func blendOverComposesStraightAlphaExactly() throws {
        let pixels = try APNGTesting.decode("blend-over").frames[1].pixels
        // Red at alpha 128 over opaque blue: 200·128/255 + 30·127/255 = 115.3, 30·128/255 + 200·127/255 = 114.7.
        #expect(pixels[0, 0] == RGBA(115, 30, 115, 255))
        // Over blue at alpha 128: outA = 128 + 128·127/255 = 191.75;
        // red = (200·128·255 + 30·128·127) / 48896 = 143.4, blue = (30·128·255 + 200·128·127) / 48896 = 86.5.
        #expect(pixels[2, 0] == RGBA(143, 30, 87, 192))
        // Over transparent: the source as it is.
        #expect(pixels[4, 0] == RGBA(200, 30, 30, 128))
        // Over white at alpha 64: weights 128·255 and 64·127, alpha 40768 / 255 = 159.9.
        #expect(pixels[6, 0] == RGBA(211, 75, 75, 160))
        // A transparent source pixel leaves the canvas alone; an opaque one replaces it.
        #expect(pixels[0, 1] == APNGColors.blue)
        #expect(pixels[2, 1] == RGBA(30, 30, 200, 128))
        #expect(pixels[4, 1] == APNGColors.clear)
        #expect(pixels[6, 1] == RGBA(255, 255, 255, 64))
        #expect(pixels[7, 1] == APNGColors.green)
    }

    @Test func paletteAlphasAndColourKeysBlendOver() throws {
        let palette = try APNGTesting.decode("palette-trns").frames[1].pixels
        #expect(palette[1, 1] == RGBA(115, 30, 115, 255))  // entry 1 (red, alpha 128) over blue
        #expect(palette[2, 1] == APNGColors.blue)  // entry 0 has alpha 0
        #expect(palette[3, 1] == APNGColors.green)
        let gray = try APNGTesting.decode("gray-colour-key").frames[1].pixels
        #expect(gray[1, 0] == RGBA(50, 50, 50, 255))
        #expect(gray[2, 0] == RGBA(200, 200, 200, 255))  // the key value 77 is transparent: the canvas shows
    }

    @Test func sixteenBitFramesAreRounded() throws {
        // Stored 0x10FF at frame 0's (0, 0): 4351 × 255 / 65535 = 16.9, so 17.
        let image = try APNGTesting.decode("rgb16-interlaced")
        #expect(image.frames[0].pixels[0, 0].r == 17)
        #expect(image.frames[1].pixels[1, 2].r == 17)
    }

    @Test func durationsFollowTheDelayFractionWithTheShortDelayRule() throws {
        let image = try APNGTesting.decode("delays")
        // 1/100 and 0/0 play as 0.1 s; 5/0 is 5/100; 1/30; 11/1000 is long enough to keep; 3/2.
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.05, 1.0 / 30, 0.011, 1.5])
        #expect(image.loopCount == 7)
        #expect(image.duration == 0.1 + 0.1 + 0.05 + 1.0 / 30 + 0.011 + 1.5)
    }

    @Test func pillowWrittenFileKeepsItsTiming() throws {
        let image = try APNGTesting.decode("pillow")
        #expect(image.frames.map(\.duration) == [0.04, 0.05, 0.06, 0.07])
        #expect(image.loopCount == 2)
    }

    @Test func oneFrameIsAStillImage() throws {
        let image = try APNGTesting.decode("single-frame")
        #expect(image.frames.count == 1)
        #expect(image.frames[0].duration == 0)
        #expect(image.loopCount == 1)
        #expect(!image.isAnimated)
        #expect(GIFTesting.mismatch(image.pixels) { _, _ in APNGColors.green } == nil)
    }

    @Test func frameControlAfterImageDataIsAStillPNG() throws {
        // acTL after IDAT does not animate a file: its IDAT image is all there is.
        let image = try APNGTesting.decode("actl-after-idat")
        #expect(image.frames.count == 1)
        #expect(GIFTesting.mismatch(image.pixels) { _, _ in APNGColors.magenta } == nil)
    }

    @Test func sharedRegistryDecodesEveryFrame() throws {
        let image = try ImageCoders.shared.decode(Fixtures.data("apng/dispose-previous.png"))
        let expected = try APNGTesting.expectedFrames("dispose-previous", size: PixelSize(width: 8, height: 8))
        #expect(image.frames.map(\.pixels.bytes) == expected)
    }
}
