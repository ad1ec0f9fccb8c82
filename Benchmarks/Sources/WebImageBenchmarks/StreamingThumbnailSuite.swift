import Foundation
import WebImage

/// Thumbnails shrunk while decoding beside decoding in full and resizing after (issue 17): time in one process,
/// and peak memory with one fresh process per way.
enum StreamingThumbnailSuite {
    static let files = ["photo-4k.png", "photo-4k.webp", "photo-4k.gif"]
    static let box = PixelSize(width: 256, height: 256)

    static func run(data folder: URL) throws {
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let name = "\(file) (3840x2160) to 256 px"
            let streamed = try Timing.median { _ = try thumbnail(data) }
            let full = try Timing.median { _ = try decodeThenResize(data) }
            Measurement(suite: "thumbnail", name: name, implementation: "swift-web-image", value: streamed,
                        unit: "ms").emit()
            Measurement(suite: "thumbnail", name: name, implementation: "full decode, then resize", value: full,
                        unit: "ms").emit()
        }
    }

    /// One thumbnail made one way in this (fresh) process; prints the peak memory it added, file included.
    static func peak(file: URL, way: String) throws {
        let before = peakResidentBytes()
        let data = try Data(contentsOf: file)
        let image = way == "streamed" ? try thumbnail(data) : try decodeThenResize(data)
        let grown = Double(peakResidentBytes() - before) / 1_048_576
        let name = "\(file.lastPathComponent) to 256 px (\(image.size)), peak memory above start-up"
        Measurement(suite: "thumbnail", name: name,
                    implementation: way == "streamed" ? "swift-web-image" : "full decode, then resize",
                    value: grown, unit: "MB (file \(String(format: "%.1f", Double(data.count) / 1_048_576)) MB)").emit()
    }

    private static func thumbnail(_ data: Data) throws -> Image {
        try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
    }

    private static func decodeThenResize(_ data: Data) throws -> Image {
        let full = try ImageCoders.shared.decode(data)
        let size = DecodeOptions(thumbnailPixelSize: box).targetSize(forDisplayed: full.size) ?? full.size
        return Image(frames: [ImageFrame(pixels: try full.pixels.resized(to: size, filter: .area))])
    }
}
