import Foundation
import Testing
@testable import WebImage

/// Helpers shared by the animation tests.
enum AnimationTesting {
    /// Animated fixtures the lazy decoder must reproduce exactly (scripts/fixtures/gif.sh, webp.sh, animation.sh).
    static let animatedFixtures = [
        "gif/anim-magick.gif", "gif/anim-pillow-40.gif", "gif/magick-optimized.gif", "gif/dispose-none.gif",
        "gif/dispose-background.gif", "gif/dispose-previous.gif", "gif/dispose-previous-first.gif",
        "gif/interlaced-clipped.gif", "gif/local-palettes.gif", "gif/frame-outside.gif", "gif/delays.gif",
        "gif/loop-3.gif", "webp/animated.webp", "webp/anim-blend.webp", "webp/anim-lossless-40.webp",
        "webp/anim-lossy-40.webp",
    ]

    /// The eager decode of a fixture through the registered coders.
    static func eager(_ path: String, _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try ImageCoders.shared.decode(Fixtures.data(path), options: options)
    }

    /// A lazy image of a fixture.
    static func lazy(_ path: String, _ options: AnimatedImage.Options = AnimatedImage.Options()) throws
        -> AnimatedImage
    {
        try AnimatedImage(data: Fixtures.data(path), options: options)
    }

    /// Bytes of one frame of `image`.
    static func frameBytes(_ image: AnimatedImage) -> Int {
        image.size.area * PixelBuffer.bytesPerPixel
    }

    /// A deterministic shuffle of `0..<count` (a linear congruential generator seeded with `seed`).
    static func shuffled(_ count: Int, seed: UInt64) -> [Int] {
        var state = seed
        var order = Array(0..<count)
        for index in stride(from: count - 1, to: 0, by: -1) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let other = Int((state >> 33) % UInt64(index + 1))
            order.swapAt(index, other)
        }
        return order
    }

    /// An in-memory animation of solid frames, one colour per frame, with the given durations.
    static func solidAnimation(
        durations: [Double], size: PixelSize = PixelSize(width: 4, height: 3), loopCount: Int = 0
    ) throws -> Image {
        let frames = try durations.enumerated().map { index, duration in
            ImageFrame(pixels: try PixelBuffer(width: size.width, height: size.height,
                                               filledWith: RGBA(UInt8(index * 40 % 256), 100, 200)),
                       duration: duration)
        }
        return Image(frames: frames, loopCount: loopCount, format: .unknown)
    }

    /// Whether two bitmaps have the same size and bytes (a Bool, so a failure does not print every byte).
    static func same(_ a: PixelBuffer?, _ b: PixelBuffer) -> Bool {
        guard let a else { return false }
        return a.size == b.size && a.bytes == b.bytes
    }

    /// Whether two frame lists have the same bitmaps.
    static func same(_ a: [ImageFrame], _ b: [ImageFrame]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { same($0.pixels, $1.pixels) }
    }

    /// Checks that frame `index` of `lazy` has exactly the pixels of `eager`'s frame.
    static func expectSameFrame(_ lazy: AnimatedImage, _ eager: Image, _ index: Int, _ label: String,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let frame = try lazy.frame(at: index)
        #expect(frame.pixels.size == eager.frames[index].pixels.size, "\(label) frame \(index) size",
                sourceLocation: sourceLocation)
        #expect(same(frame.pixels, eager.frames[index].pixels), "\(label) frame \(index) pixels",
                sourceLocation: sourceLocation)
        #expect(frame.duration == eager.frames[index].duration, "\(label) frame \(index) duration",
                sourceLocation: sourceLocation)
    }
}
