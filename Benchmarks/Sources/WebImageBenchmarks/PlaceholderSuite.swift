import Foundation
import WebImage

/// Placeholders: BlurHash and ThumbHash encoders and decoders on a 100-pixel thumbnail of the 12 MP photo (what
/// `webimage info --blurhash` hashes), and the whole way from the JPEG's bytes to both hashes; SSIM on a 1 MP
/// image and the JPEG quality search that uses it. Writes the thumbnail, and the 1 MP image with its JPEG at
/// quality 50 decoded, next to the other data so that the reference side (the BlurHash authors' C code, a Python
/// ThumbHash port, Pillow for the decode, scikit-image for SSIM) reads the same pixels.
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

        let megapixel = try ImageCoders.shared.decode(
            photo, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1_200, height: 1_200))).pixels
        let lossy = try ImageCoders.shared.decode(
            try ImageCoders.shared.encode(Image(pixels: megapixel), as: .jpeg, options: EncodeOptions(quality: 0.5))).pixels
        try ImageCoders.shared.encode(Image(pixels: megapixel), as: .png)
            .write(to: folder.appendingPathComponent("ssim-original.png"))
        try ImageCoders.shared.encode(Image(pixels: lossy), as: .png)
            .write(to: folder.appendingPathComponent("ssim-jpeg50.png"))
        let side = "\(megapixel.width)x\(megapixel.height)"
        emit("SSIM of \(side) px", try Timing.median { _ = try StructuralSimilarity.index(megapixel, lossy) })
        let image = Image(pixels: megapixel)
        emit("JPEG quality search to SSIM 0.95, \(side) px", try Timing.median(minimumRuns: 5) {
            _ = try ImageCoders.shared.encode(image, as: .jpeg, target: .ssim(0.95))
        })
        emit("JPEG encode at one quality (0.8), \(side) px", try Timing.median {
            _ = try ImageCoders.shared.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.8))
        })
    }

    private static func emit(_ name: String, _ value: Double) {
        Measurement(suite: "placeholders", name: name, implementation: "swift-web-image", value: value, unit: "ms")
            .emit()
    }
}
