import Testing
@testable import WebImage

@Suite struct DecodeOptionsTests {
    private let photo = PixelSize(width: 4000, height: 3000)

    @Test func fullSizeByDefault() {
        #expect(DecodeOptions().targetSize(forDisplayed: photo) == nil)
    }

    @Test func thumbnailFitsInsideTheBoxKeepingAspect() {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        #expect(options.targetSize(forDisplayed: photo) == PixelSize(width: 256, height: 192))
        #expect(options.targetSize(forDisplayed: PixelSize(width: 300, height: 1200)) == PixelSize(width: 64, height: 256))
    }

    @Test func thumbnailWithoutAspectIsExactButNeverLarger() {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256), preserveAspectRatio: false)
        #expect(options.targetSize(forDisplayed: photo) == PixelSize(width: 256, height: 256))
        #expect(options.targetSize(forDisplayed: PixelSize(width: 100, height: 900)) == PixelSize(width: 100, height: 256))
    }

    @Test func neverScalesUp() {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 1000, height: 1000))
        #expect(options.targetSize(forDisplayed: PixelSize(width: 640, height: 480)) == nil)
    }

    @Test func scaleDownLimitKeepsBytesUnderTheLimit() throws {
        let limit = 1_000_000
        let options = DecodeOptions(scaleDownLimitBytes: limit)
        let target = try #require(options.targetSize(forDisplayed: photo))
        #expect(target.area * 4 <= limit)
        #expect(target.area * 4 > limit * 95 / 100)
        #expect(abs(Double(target.width) / Double(target.height) - 4.0 / 3.0) < 0.01)
    }

    @Test func storedTargetFollowsOrientation() {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 300, height: 400))
        // Stored 4000×3000 turned 90° shows as 3000×4000: the box fits 300×400, i.e. 400×300 in stored axes.
        #expect(options.storedTargetSize(for: photo, orientation: .right) == PixelSize(width: 400, height: 300))
        var raw = options
        raw.applyOrientation = false
        #expect(raw.storedTargetSize(for: photo, orientation: .right) == PixelSize(width: 300, height: 225))
    }

    @Test func scaleComesFromTheNameUnlessGiven() {
        #expect(DecodeOptions(fileNameHint: "https://x.test/a/icon@2x.png?v=1").resolvedScale == 2)
        #expect(DecodeOptions(fileNameHint: "/tmp/icon@3x.jpg").resolvedScale == 3)
        #expect(DecodeOptions(fileNameHint: "/tmp/photo.jpg").resolvedScale == 1)
        #expect(DecodeOptions(scaleFactor: 2, fileNameHint: "icon@3x.png").resolvedScale == 2)
        #expect(ScaleFactor.fromName("a@2x/b.png") == 1)
    }

    @Test func limitsRefuseBombsAndEmptyHeaders() {
        let limits = DecodeLimits.default
        #expect(throws: Never.self) { try limits.check(PixelSize(width: 9000, height: 9000)) }
        #expect { try limits.check(PixelSize(width: 100_000, height: 100_000)) } throws: {
            ($0 as? ImageError)?.code == .imageTooLarge
        }
        #expect { try limits.check(PixelSize(width: 0, height: 10)) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }
        #expect { try limits.check(frameCount: 100_000, canvas: PixelSize(width: 1, height: 1)) } throws: {
            ($0 as? ImageError)?.code == .imageTooLarge
        }
        #expect { try limits.check(frameCount: 500, canvas: PixelSize(width: 2000, height: 2000)) } throws: {
            ($0 as? ImageError)?.code == .imageTooLarge
        }
    }

    @Test func finishDownsamplesThenOrients() throws {
        let stored = try PixelBuffer(width: 40, height: 20, filledWith: RGBA(50, 60, 70, 255))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 5, height: 5))
        let (pixels, reduced) = try options.finish(stored, sourceSize: stored.size, orientation: .left)
        #expect(pixels.size == PixelSize(width: 3, height: 5))
        #expect(reduced)
        #expect(pixels[1, 1] == RGBA(50, 60, 70, 255))
    }
}
