import Foundation
import WebImage
import WebImageAVIF
import WebImageHEIF
import WebImageJXL
import WebImageSVG

/// The formats issue's targets: header-only properties against a full decode, and the plugin decoders (the C
/// references run as their own programs beside this one, in `Benchmarks/run.sh formats`).
enum FormatsSuite {
    static func run(data folder: URL) throws {
        func load(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        let coders = ImageCoders(coders: ImageCoders.builtIn)
        for coder: any ImageCoder in [AVIFCoder(), HEIFCoder(), JXLCoder(), SVGCoder()] { coders.add(coder) }

        let photo = try load("photo-12mp.jpg")
        let name = "12 MP JPEG: format, size, orientation"
        let decode = try Timing.median { _ = try coders.decode(photo) }
        Measurement(suite: "formats", name: name, implementation: "full decode", value: decode, unit: "ms").emit()
        let header = try Timing.median(minimumRuns: 200) { _ = try coders.properties(of: photo) }
        Measurement(suite: "formats", name: name, implementation: "swift-web-image", value: header, unit: "ms").emit()

        let gif = try load("formats/frames-1000.gif")
        let frames = "1 000-frame GIF: frame count and durations"
        let gifDecode = try Timing.median(minimumRuns: 3) { _ = try coders.decode(gif) }
        Measurement(suite: "formats", name: frames, implementation: "full decode", value: gifDecode, unit: "ms").emit()
        let gifHeader = try Timing.median { _ = try coders.properties(of: gif) }
        Measurement(suite: "formats", name: frames, implementation: "swift-web-image", value: gifHeader, unit: "ms").emit()

        for (caseName, file) in [("1 MP AVIF decode", "formats/photo-1mp.avif"), ("1 MP HEIC decode", "formats/photo-1mp.heic"),
                                 ("1 MP JPEG XL decode", "formats/photo-1mp.jxl"), ("SVG render at its size", "formats/shapes.svg")] {
            let data = try load(file)
            let ours = try Timing.median { _ = try coders.decode(data) }
            Measurement(suite: "formats", name: caseName, implementation: "swift-web-image", value: ours, unit: "ms").emit()
        }
    }
}
