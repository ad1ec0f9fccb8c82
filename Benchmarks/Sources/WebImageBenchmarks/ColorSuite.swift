import Foundation
import WebImage

/// Colour management: what converting a Display P3 photo to sRGB adds to its decode, beside Pillow's ImageCms
/// (Little CMS) doing the same transform. Writes the P3-tagged photo it measures next to the other data, for the
/// Pillow side to read.
enum ColorSuite {
    static func run(data folder: URL) throws {
        let photo = try Data(contentsOf: folder.appendingPathComponent("photo-12mp.jpg"))
        let tagged = taggedWithDisplayP3(photo)
        try tagged.write(to: folder.appendingPathComponent("photo-12mp-p3.jpg"))

        let stored = DecodeOptions(colorHandling: .original)
        // Kept and converted in turn: the conversion is the median of the differences within a turn.
        let (asStored, converted, conversion) = try Timing.alternating(
            { _ = try ImageCoders.shared.decode(tagged, options: stored) },
            { _ = try ImageCoders.shared.decode(tagged) })
        emit("12 MP Display P3 JPEG decode, samples kept", "swift-web-image", asStored)
        emit("12 MP Display P3 JPEG decode, converted to sRGB", "swift-web-image", converted)
        emit("12 MP Display P3 → sRGB conversion alone (difference)", "swift-web-image", conversion)
        emit("12 MP Display P3 → sRGB conversion ÷ decode", "swift-web-image", conversion / asStored, unit: "ratio")

        let box = PixelSize(width: 300, height: 300)
        let keptThumbnail = DecodeOptions(thumbnailPixelSize: box, colorHandling: .original)
        let (thumbnailKept, thumbnailConverted, thumbnailConversion) = try Timing.alternating(
            { _ = try ImageCoders.shared.decode(tagged, options: keptThumbnail) },
            { _ = try ImageCoders.shared.decode(tagged, options: DecodeOptions(thumbnailPixelSize: box)) })
        emit("12 MP Display P3 JPEG to 300 px, samples kept", "swift-web-image", thumbnailKept)
        emit("12 MP Display P3 JPEG to 300 px, converted to sRGB", "swift-web-image", thumbnailConverted)
        emit("12 MP Display P3 JPEG to 300 px, conversion ÷ thumbnail", "swift-web-image",
             thumbnailConversion / thumbnailKept, unit: "ratio")

        let untagged = try Timing.median { _ = try ImageCoders.shared.decode(photo) }
        emit("12 MP untagged JPEG decode (nothing to convert)", "swift-web-image", untagged)
    }

    private static func emit(_ name: String, _ implementation: String, _ value: Double, unit: String = "ms") {
        Measurement(suite: "color", name: name, implementation: implementation, value: value, unit: unit).emit()
    }

    /// `jpeg` with the Display P3 profile in an APP2 segment after SOI.
    private static func taggedWithDisplayP3(_ jpeg: Data) -> Data {
        let icc = ColorProfile.displayP3.iccData
        let length = 16 + icc.count
        var segment = Data([0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)])
        segment.append(contentsOf: Array("ICC_PROFILE".utf8) + [0, 1, 1])
        segment.append(icc)
        return jpeg.prefix(2) + segment + jpeg.dropFirst(2)
    }
}
