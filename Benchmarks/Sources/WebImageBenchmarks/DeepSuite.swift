import Foundation
import WebImage

/// `preserve_hdr`'s cost: a 16-bit PNG photo made into a 300 px wide 16-bit PNG (decoded keeping its 16 bits,
/// resized and encoded in 16 bits), beside the same file through the 8-bit pipeline, measured in turn. libvips'
/// `thumbnail`, which keeps 16 bits too, runs beside it from `Benchmarks/run.sh deep`.
enum DeepSuite {
    static func run(data folder: URL) throws {
        let source = try Data(contentsOf: folder.appendingPathComponent("deep/photo-2mp-16.png"))
        func thumbnail(keepingBits: Bool) throws {
            let image = try ImageCoders.shared.decode(source, options: DecodeOptions(keepsHighBitDepth: keepingBits))
            let width = 300, height = Int((Double(image.size.height) * 300 / Double(image.size.width)).rounded())
            let small = try ImageTransformers.Resize(to: PixelSize(width: width, height: height)).transform(image)
            _ = try ImageCoders.shared.encode(small, as: .png)
        }
        let (deep, eightBit, extra) = try Timing.alternating(runs: 15, { try thumbnail(keepingBits: true) },
                                                             { try thumbnail(keepingBits: false) })
        emit("2 MP 16-bit PNG to a 300 px 16-bit PNG", "swift-web-image", deep)
        emit("2 MP 16-bit PNG to a 300 px 8-bit PNG", "swift-web-image", eightBit)
        emit("2 MP 16-bit PNG to 300 px: keeping 16 bits ÷ 8 bits", "swift-web-image", deep / eightBit, unit: "ratio")
        _ = extra
    }

    private static func emit(_ name: String, _ implementation: String, _ value: Double, unit: String = "ms") {
        Measurement(suite: "deep", name: name, implementation: implementation, value: value, unit: unit).emit()
    }
}
