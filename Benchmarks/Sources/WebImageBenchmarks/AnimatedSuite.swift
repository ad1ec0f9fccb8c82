import Foundation
import WebImage

/// Every frame of an animation decoded and composited (issue 3): GIF beside giflib and Pillow, animated WebP
/// beside libwebp's demuxer and WebPAnimDecoder called from C (Benchmarks/reference/webp_anim_bench.c); and
/// one frame out of the middle (``DecodeOptions/frameIndex``) beside Pillow's seek.
enum AnimatedSuite {
    static func run(data folder: URL) throws {
        for file in ["pan-640x480-20.gif", "pan-640x480-20.webp"] {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let frames = try ImageCoders.shared.decode(data).frames.count
            let all = try Timing.median { _ = try ImageCoders.shared.decode(data) }
            Measurement(suite: "animated", name: "\(file), \(frames) frames, all to RGBA",
                        implementation: "swift-web-image", value: all, unit: "ms").emit()
            // One frame, as `frame:10` in a proxy URL or `--frame 10` asks: the frames before it are composited
            // but not copied out, and the ones after it are not read.
            let tenth = DecodeOptions(frameIndex: 10)
            let one = try Timing.median { _ = try ImageCoders.shared.decode(data, options: tenth) }
            Measurement(suite: "animated", name: "\(file), frame 10 alone to RGBA",
                        implementation: "swift-web-image", value: one, unit: "ms").emit()
        }
    }
}
