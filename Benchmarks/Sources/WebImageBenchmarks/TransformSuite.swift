import Foundation
import WebImage

/// Transformers on decoded images (issue 7), beside Pillow and libvips doing the same operations.
enum TransformSuite {
    static func run(data folder: URL) throws {
        func decode(_ name: String) throws -> Image {
            try ImageCoders.shared.decode(try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        let photo = try decode("photo-12mp.jpg"), small = try decode("photo-800x600.jpg"), hd = try decode("photo-1080p.webp")
        let cases: [(String, Image, any ImageTransformer)] = [
            ("resize 12 MP to 1920x1440 (Lanczos)", photo, .resize(to: PixelSize(width: 1920, height: 1440))),
            ("resize 800x600 to 256x192 (Lanczos)", small, .resize(to: PixelSize(width: 256, height: 192))),
            ("Gaussian blur sigma 10, 1080p", hd, .blur(radius: 10)),
            ("rotate 30 degrees with expand, 1080p", hd, .rotate(degrees: 30, fitSize: true)),
        ]
        for (name, image, transformer) in cases {
            let time = try Timing.median { _ = try transformer.transform(image) }
            Measurement(suite: "transform", name: name, implementation: "swift-web-image", value: time, unit: "ms").emit()
        }
    }
}
