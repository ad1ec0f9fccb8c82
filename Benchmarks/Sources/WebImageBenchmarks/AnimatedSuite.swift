import Foundation
import WebImage

/// Every frame of an animation decoded and composited (issue 3), beside giflib and Pillow.
enum AnimatedSuite {
    static func run(data folder: URL) throws {
        let file = "pan-640x480-20.gif"
        let data = try Data(contentsOf: folder.appendingPathComponent(file))
        let frames = try ImageCoders.shared.decode(data).frames.count
        let all = try Timing.median { _ = try ImageCoders.shared.decode(data) }
        Measurement(suite: "animated", name: "\(file), \(frames) frames, all to RGBA", implementation: "swift-web-image",
                    value: all, unit: "ms").emit()
    }
}
