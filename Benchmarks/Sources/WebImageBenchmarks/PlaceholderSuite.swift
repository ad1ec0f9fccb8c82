import Foundation
import WebImage

/// Placeholders: BlurHash and ThumbHash encoders and decoders on a 100-pixel thumbnail of the 12 MP photo (what
/// `webimage info --blurhash` hashes), and the whole way from the JPEG's bytes to both hashes. Writes the
/// thumbnail next to the other data so that the reference side (the BlurHash authors' C code, a Python ThumbHash
/// port, Pillow for the decode) hashes the same pixels.
enum PlaceholderSuite {
    static func run(data folder: URL) throws {
        let photo = try Data(contentsOf: folder.appendingPathComponent("photo-12mp.jpg"))
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100), firstFrameOnly: true)
        let thumbnail = try ImageCoders.shared.decode(photo, options: box).pixels
        let png = try ImageCoders.shared.encode(Image(pixels: thumbnail), as: .png)
        try png.write(to: folder.appendingPathComponent("placeholder-100.png"))
        let size = "\(thumbnail.width)x\(thumbnail.height)"

        emit("BlurHash 4x3 of \(size) px", try Timing.median(minimumRuns: 200) {
            _ = try BlurHash.encode(thumbnail, componentsX: 4, componentsY: 3)
        })
        emit("BlurHash 9x9 of \(size) px", try Timing.median(minimumRuns: 200) {
            _ = try BlurHash.encode(thumbnail, componentsX: 9, componentsY: 9)
        })
        let blurHash = try BlurHash.encode(thumbnail, componentsX: 4, componentsY: 3)
        emit("BlurHash 4x3 drawn at 32x32", try Timing.median(minimumRuns: 200) {
            _ = try BlurHash.decode(blurHash, width: 32, height: 32)
        })
        emit("ThumbHash of \(size) px", try Timing.median(minimumRuns: 200) { _ = try ThumbHash.encode(thumbnail) })
        let thumbHash = try ThumbHash.encode(thumbnail)
        emit("ThumbHash drawn (32 px)", try Timing.median(minimumRuns: 200) { _ = try ThumbHash.decode(thumbHash) })
        emit("12 MP JPEG → 100 px decode", try Timing.median { _ = try ImageCoders.shared.decode(photo, options: box) })
        emit("12 MP JPEG → 100 px → BlurHash 4x3", try Timing.median {
            let pixels = try ImageCoders.shared.decode(photo, options: box).pixels
            _ = try BlurHash.encode(pixels, componentsX: 4, componentsY: 3)
        })
    }

    private static func emit(_ name: String, _ value: Double) {
        Measurement(suite: "placeholders", name: name, implementation: "swift-web-image", value: value, unit: "ms")
            .emit()
    }
}
