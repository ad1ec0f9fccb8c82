import Foundation
import Testing
@testable import WebImage

/// Decode options on APNG: first frame only, thumbnails and the scale-down limit on every frame, orientation,
/// and the pixel and frame limits.
@Suite struct APNGOptionsTests {
    @Test func firstFrameOnlyGivesTheFirstAnimationFrameAsAStill() throws {
        let options = DecodeOptions(firstFrameOnly: true)
        let first = try APNGTesting.decode("default-is-first-frame", options: options)
        #expect(first.frames.count == 1)
        #expect(first.frames[0].duration == 0)
        #expect(first.loopCount == 1)
        #expect(GIFTesting.mismatch(first.pixels) { _, _ in APNGColors.red } == nil)
        // With a hidden default image, the first animation frame, not the default image.
        let hidden = try ImageCoders.shared.decode(Fixtures.data("apng/default-hidden.png"), options: options)
        #expect(hidden.frames.count == 1)
        let expected = try APNGTesting.expectedFrames("default-hidden", size: PixelSize(width: 8, height: 8))
        #expect(hidden.pixels.bytes == expected[0])
    }

    @Test func thumbnailsAreMadeOfEveryFrame() throws {
        // Every rectangle in the fixture is aligned to 2 pixels, so halving keeps each pixel exact.
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4))
        let image = try APNGTesting.decode("default-is-first-frame", options: options)
        let full = try APNGTesting.decode("default-is-first-frame")
        #expect(image.frames.count == 3)
        #expect(image.flags.contains(.thumbnail))
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3])
        for (small, large) in zip(image.frames, full.frames) {
            #expect(small.pixels.size == PixelSize(width: 4, height: 4))
            #expect(GIFTesting.mismatch(small.pixels) { x, y in large.pixels[2 * x, 2 * y] } == nil)
        }
    }

    @Test func scaleDownLimitAppliesToEveryFrame() throws {
        // 8x8 RGBA is 256 bytes; 64 bytes allow 16 pixels: 4x4.
        let image = try APNGTesting.decode("dispose-previous", options: DecodeOptions(scaleDownLimitBytes: 64))
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.pixels.size == PixelSize(width: 4, height: 4) })
        #expect(image.frames[2].pixels[0, 0] == APNGColors.blue)
        #expect(image.frames[2].pixels[3, 3] == APNGColors.green)
    }

    @Test func exifOrientationTurnsEveryFrame() throws {
        let stored = try APNGTesting.expectedFrames("exif6", size: PixelSize(width: 4, height: 2))
        let image = try APNGTesting.decode("exif6")
        #expect(image.orientation == .right)
        #expect(image.frames.count == 2)
        for (frame, storedBytes) in zip(image.frames, stored) {
            let raw = try PixelBuffer(width: 4, height: 2, rgba: storedBytes)
            #expect(frame.pixels.size == PixelSize(width: 2, height: 4))
            // Turned 90° clockwise: displayed (x, y) shows stored (y, storedHeight - 1 - x).
            #expect(GIFTesting.mismatch(frame.pixels) { x, y in raw[y, 1 - x] } == nil)
        }
        let unturned = try APNGTesting.decode("exif6", options: DecodeOptions(applyOrientation: false))
        #expect(unturned.orientation == .right)
        #expect(unturned.frames.map(\.pixels.bytes) == stored)
    }

    @Test func canvasOverThePixelLimitIsRefused() {
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 63))
        #expect(APNGTesting.code { try APNGTesting.decode("dispose-none", options: options) } == .imageTooLarge)
        let exact = DecodeOptions(limits: DecodeLimits(maxPixels: 64))
        #expect(APNGTesting.code { try APNGTesting.decode("dispose-none", options: exact) } == nil)
    }

    @Test func frameLimitsCountTheDeclaredFrames() {
        let twoFrames = DecodeOptions(limits: DecodeLimits(maxFrames: 2))
        #expect(APNGTesting.code { try APNGTesting.decode("dispose-none", options: twoFrames) } == .imageTooLarge)
        let three = DecodeOptions(limits: DecodeLimits(maxFrames: 3))
        #expect(APNGTesting.code { try APNGTesting.decode("dispose-none", options: three) } == nil)
        // 3 frames of 64 pixels are 192 pixels in all.
        let total = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 191))
        #expect(APNGTesting.code { try APNGTesting.decode("dispose-none", options: total) } == .imageTooLarge)
        let totalExact = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 192))
        #expect(APNGTesting.code { try APNGTesting.decode("dispose-none", options: totalExact) } == nil)
    }

    @Test func firstFrameOnlyCountsOneFrameAgainstTheLimits() throws {
        let options = DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 1))
        let image = try APNGTesting.decode("dispose-none", options: options)
        #expect(image.frames.count == 1)
    }

    @Test func frameCountBombIsRefusedBeforeDecoding() {
        #expect(APNGTesting.code { try APNGTesting.decode("bomb-frames") } == .imageTooLarge)
    }

    @Test func canvasBombIsRefusedFromTheHeader() {
        #expect(APNGTesting.code { try APNGTesting.decode("bomb-canvas") } == .imageTooLarge)
        #expect(APNGTesting.code {
            try APNGTesting.decode("bomb-canvas", options: DecodeOptions(firstFrameOnly: true))
        } == .imageTooLarge)
    }
}
