import Foundation
import WebImage

/// Every frame of an animation decoded and composited (issue 3): GIF beside giflib and Pillow, animated WebP
/// beside libwebp's demuxer and WebPAnimDecoder called from C (Benchmarks/reference/webp_anim_bench.c).
enum AnimatedSuite {
    static func run(data folder: URL) throws {
        for file in ["pan-640x480-20.gif", "pan-640x480-20.webp"] {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let frames = try ImageCoders.shared.decode(data).frames.count
            let all = try Timing.median { _ = try ImageCoders.shared.decode(data) }
            Measurement(suite: "animated", name: "\(file), \(frames) frames, all to RGBA",
                        implementation: "swift-web-image", value: all, unit: "ms").emit()
        }
    }
}
