import Foundation
import WebImage
import WebImageServer

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
        try proxyEffects(hd)
    }

    /// The proxy's own pixel effects (`trim`, `watermark`, `pixelate`), through ``ProxyRenderer`` without the
    /// encode: the same work a request does between scaling and encoding.
    static func proxyEffects(_ hd: Image) throws {
        let bordered = try framed(hd, border: 100)
        let mark = try ProxyWatermark(pixels: PixelBuffer(width: 256, height: 256) { bytes in
            for index in stride(from: 0, to: bytes.count, by: 4) {
                let x = index / 4 % 256, y = index / 4 / 256
                (bytes[index], bytes[index + 1], bytes[index + 2]) = (255, UInt8(x), UInt8(y))
                bytes[index + 3] = (x / 32 + y / 32) % 2 == 0 ? 200 : 0
            }
        })
        let renderer = ProxyRenderer(watermark: mark)
        let cases: [(String, Image, [String])] = [
            ("proxy trim t:10, 1080p in a 100-pixel white border", bordered, ["t:10"]),
            ("proxy watermark 256x256 repeated at 50% (wm:0.5:re), 1080p", hd, ["wm:0.5:re"]),
            ("proxy pixelate 16 px (pix:16), 1080p", hd, ["pix:16"]),
        ]
        for (name, image, segments) in cases {
            let options = try ProcessingOptions(segments: segments)
            let time = try Timing.median { _ = try renderer.image(for: image, options: options, format: .png) }
            Measurement(suite: "transform", name: name, implementation: "swift-web-image", value: time, unit: "ms").emit()
        }
    }

    /// `image` inside a white border of `border` pixels.
    static func framed(_ image: Image, border: Int) throws -> Image {
        let width = image.size.width + 2 * border, height = image.size.height + 2 * border
        let pixels = try image.pixels.withUnsafeBytes { source in
            try PixelBuffer(width: width, height: height) { bytes in
                bytes.initializeMemory(as: UInt8.self, repeating: 255)
                let rowBytes = image.size.width * 4
                for row in 0..<image.size.height {
                    let target = bytes.baseAddress! + ((row + border) * width + border) * 4
                    target.copyMemory(from: source.baseAddress! + row * rowBytes, byteCount: rowBytes)
                }
            }
        }
        return Image(pixels: pixels, hasAlpha: false)
    }
}
