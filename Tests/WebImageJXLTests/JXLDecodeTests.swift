import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

@Suite struct JXLDecodeTests {
    @Test func detectsBothSignatures() throws {
        #expect(ImageFormat.detect(try JXLFixtures.data("still-lossless")) == .jxl)  // bare codestream
        #expect(ImageFormat.detect(try JXLFixtures.data("alpha-lossless-container")) == .jxl)  // container
        #expect(JXLCoder().decodableFormats == [.jxl])
        #expect(JXLCoder().canEncode(to: .jxl) && !JXLCoder().canEncode(to: .png))
    }

    @Test(arguments: ["still-lossless", "alpha-lossless-container", "gray-lossless"])
    func losslessStillsMatchTheirSourcesExactly(name: String) throws {
        let image = try JXLFixtures.decode(name)
        #expect(image.format == .jxl)
        #expect(image.frames.count == 1 && image.loopCount == 1 && image.frames[0].duration == 0)
        #expect(image.pixels.bytes == (try JXLFixtures.reference(name)))
        #expect(!image.flags.contains(.thumbnail))
    }

    @Test func sizesAndAlpha() throws {
        let still = try JXLFixtures.decode("still-lossless")
        #expect(still.size == PixelSize(width: 64, height: 48) && !still.hasAlpha)
        let alpha = try JXLFixtures.decode("alpha-lossless-container")
        #expect(alpha.size == PixelSize(width: 40, height: 30) && alpha.hasAlpha)
        #expect(alpha.pixels[0, 0].a == 0 && alpha.pixels[39, 0].a == 255)
        let gray = try JXLFixtures.decode("gray-lossless")
        #expect(gray.size == PixelSize(width: 33, height: 17) && !gray.hasAlpha)
    }

    @Test func lossyMatchesDjxlWithinPSNR() throws {
        let image = try JXLFixtures.decode("photo-lossy")
        #expect(image.size == PixelSize(width: 96, height: 64))
        let reference = try JXLFixtures.reference("photo-lossy")
        #expect(psnr(image.pixels.bytes, reference) >= 45)
    }

    @Test func animationFramesDurationsAndLoops() throws {
        let image = try JXLFixtures.decode("anim")
        #expect(image.frames.count == 3 && image.isAnimated && image.hasAlpha)
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(image.loopCount == 0)  // cjxl 0.7 does not carry APNG's num_plays over: "forever"
        let reference = try JXLFixtures.reference("anim")
        let frameBytes = 32 * 24 * 4
        for (index, frame) in image.frames.enumerated() {
            #expect(frame.pixels.bytes == Array(reference[index * frameBytes..<(index + 1) * frameBytes]))
        }
    }

    @Test func animationFromGIFUsesItsTickRate() throws {
        // cjxl writes GIF delays as 100 ticks per second, APNG's as 1000: both must come out in seconds.
        let image = try JXLFixtures.decode("anim-gif")
        #expect(image.frames.map(\.duration) == [0.1, 0.2, 0.3])
    }

    @Test func firstFrameOnlyIsAStill() throws {
        let image = try JXLFixtures.decode("anim", DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1 && image.frames[0].duration == 0 && image.loopCount == 1)
        #expect(image.pixels.bytes == Array(try JXLFixtures.reference("anim")[0..<32 * 24 * 4]))
    }

    @Test(arguments: [0, 1, 2])
    func frameIndexDecodesThatFrameOnly(index: Int) throws {
        let image = try JXLFixtures.decode("anim", DecodeOptions(frameIndex: index))
        let frameBytes = 32 * 24 * 4
        #expect(image.frames.count == 1 && image.frames[0].duration == 0)
        #expect(image.pixels.bytes == Array(try JXLFixtures.reference("anim")[index * frameBytes..<(index + 1) * frameBytes]))
    }

    @Test func frameIndexPastTheEnd() throws {
        #expect(errorCode { _ = try JXLFixtures.decode("anim", DecodeOptions(frameIndex: 3)) } == .invalidParameter)
        #expect(errorCode { _ = try JXLFixtures.decode("still-lossless", DecodeOptions(frameIndex: 1)) } == .invalidParameter)
        #expect(try JXLFixtures.decode("still-lossless", DecodeOptions(frameIndex: 0)).size.width == 64)
    }

    @Test func orientationIsReportedAndApplied() throws {
        // A JPEG with EXIF orientation 6, recompressed by cjxl: the codestream declares orientation 6.
        let upright = try JXLFixtures.decode("oriented")
        #expect(upright.orientation == .right)
        #expect(upright.size == PixelSize(width: 24, height: 40))
        #expect(upright.pixels.bytes == (try JXLFixtures.reference("oriented")))  // djxl turns it too

        let stored = try JXLFixtures.decode("oriented", DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == .right)
        #expect(stored.size == PixelSize(width: 40, height: 24))
        #expect(try stored.pixels.applying(.right).bytes == upright.pixels.bytes)
    }

    @Test func thumbnailsAreAreaAveragedFromTheFullDecode() throws {
        let thumbnail = try JXLFixtures.decode("still-lossless", DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(thumbnail.size == PixelSize(width: 16, height: 12))
        #expect(thumbnail.flags.contains(.thumbnail))
        let full = try JXLFixtures.decode("still-lossless")
        #expect(thumbnail.pixels.bytes == (try full.pixels.resized(to: PixelSize(width: 16, height: 12), filter: .area).bytes))

        let turned = try JXLFixtures.decode("oriented", DecodeOptions(thumbnailPixelSize: PixelSize(width: 12, height: 12)))
        #expect(turned.size == PixelSize(width: 7, height: 12))

        let frames = try JXLFixtures.decode("anim", DecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
        #expect(frames.frames.count == 3 && frames.frames.allSatisfy { $0.pixels.size == PixelSize(width: 8, height: 6) })
    }

    @Test func scaleFromTheFileName() throws {
        let image = try JXLFixtures.decode("still-lossless", DecodeOptions(fileNameHint: "icon@2x.jxl"))
        #expect(image.scale == 2)
    }
}
