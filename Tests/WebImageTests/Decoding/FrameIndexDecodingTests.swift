import Foundation
import Testing
@testable import WebImage

/// ``DecodeOptions/frameIndex`` on the animated formats of the core (GIF, APNG, WebP): the coder stops after the
/// frame asked for and returns it alone, as a still, with the same pixels as that frame of a full decode — so the
/// frames before it must still have been composited underneath, with their disposal and blending. Still images
/// (JPEG, PNG, WebP, GIF) have only frame 0.
@Suite struct FrameIndexDecodingTests {
    /// Animations whose frames depend on the ones before them: partial frames, disposal to background and to
    /// previous, blending over, and a default image that is not part of the animation.
    static let animations = [
        "gif/magick-optimized.gif", "gif/dispose-previous.gif", "gif/dispose-background.gif",
        "gif/interlaced-clipped.gif", "gif/anim-pillow-40.gif",
        "apng/dispose-previous-twice.png", "apng/blend-over-offsets.png", "apng/default-hidden.png",
        "apng/dispose-background.png",
        "webp/anim-blend.webp", "webp/anim-lossy-40.webp",
    ]

    private static func decode(_ path: String, _ options: DecodeOptions) throws -> Image {
        try ImageCoders.shared.decode(Fixtures.data(path), options: options)
    }

    /// The frames to pick from an animation of `count`: all of a short one, a spread of a long one.
    private static func picks(_ count: Int) -> [Int] {
        count <= 6 ? Array(0..<count) : [0, 1, count / 2, count - 2, count - 1]
    }

    @Test("each picked frame is that frame of the full decode, alone and still", arguments: animations)
    func pickedFrameMatchesTheFullDecode(_ path: String) throws {
        let full = try Self.decode(path, DecodeOptions())
        #expect(full.frames.count > 1)
        for index in Self.picks(full.frames.count) {
            let picked = try Self.decode(path, DecodeOptions(frameIndex: index))
            #expect(picked.frames.count == 1, "\(path) frame \(index)")
            #expect(picked.frames[0].duration == 0 && picked.loopCount == 1, "\(path) frame \(index)")
            #expect(picked.pixels.size == full.frames[index].pixels.size, "\(path) frame \(index)")
            let samePixels = picked.pixels.bytes == full.frames[index].pixels.bytes  // not printed: too long
            #expect(samePixels, "\(path) frame \(index)")
        }
    }

    @Test("a picked frame's thumbnail is that frame of the full thumbnail decode", arguments: animations)
    func pickedFrameThumbnail(_ path: String) throws {
        var options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 9, height: 9))
        let full = try Self.decode(path, options)
        let last = full.frames.count - 1
        for index in [0, last] {
            options.frameIndex = index
            let picked = try Self.decode(path, options)
            #expect(picked.frames.count == 1)
            #expect(picked.flags.contains(.thumbnail) == full.flags.contains(.thumbnail))
            #expect(picked.pixels.bytes == full.frames[index].pixels.bytes, "\(path) frame \(index)")
        }
    }

    @Test("a frame index wins over first-frame-only", arguments: ["gif/dispose-previous.gif",
                                                                 "apng/blend-over-offsets.png", "webp/anim-blend.webp"])
    func frameIndexWinsOverFirstFrameOnly(_ path: String) throws {
        let full = try Self.decode(path, DecodeOptions())
        let picked = try Self.decode(path, DecodeOptions(firstFrameOnly: true, frameIndex: full.frames.count - 1))
        let samePixels = picked.pixels.bytes == full.frames[full.frames.count - 1].pixels.bytes
        #expect(samePixels, "\(path)")
    }

    @Test("an index past the last frame, or other than 0 for a still, is an invalid parameter",
          arguments: animations + ["gif/static-opaque.gif", "png/bands64x32.png", "webp/lossy.webp",
                                   "jpeg/baseline.jpg"])
    func indexPastTheEnd(_ path: String) throws {
        let count = try Self.decode(path, DecodeOptions()).frames.count
        #expect(try Self.decode(path, DecodeOptions(frameIndex: count - 1)).frames.count == 1)
        #expect { try Self.decode(path, DecodeOptions(frameIndex: count)) } throws: {
            ($0 as? ImageError)?.code == .invalidParameter
        }
    }

    @Test("damage after the picked frame is never read; damage before it is still an error")
    func damage() throws {
        // corrupt-middle.gif: frame 1 of 3 ends its pixel data early.
        let data = try Fixtures.data("gif/corrupt-middle.gif")
        let first = try GIFCoder().decode(data, options: DecodeOptions(frameIndex: 0))
        #expect(GIFTesting.mismatch(first.pixels) { _, _ in GIFColors.a } == nil)
        for index in [1, 2] {
            #expect { try GIFCoder().decode(data, options: DecodeOptions(frameIndex: index)) } throws: {
                ($0 as? ImageError)?.code == .badImageData
            }
            #expect { try GIFCoder().decodeCompleteFrames(data, options: DecodeOptions(frameIndex: index)) } throws: {
                ($0 as? ImageError)?.code == .badImageData
            }
        }
    }
}
