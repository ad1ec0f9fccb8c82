import Foundation
import WebImage

/// One generated file the demo serves.
struct DemoImage: Sendable {
    /// The kinds, in the order the demo's table lists them.
    enum Kind: String, CaseIterable, Sendable {
        case jpeg = "JPEG baseline"
        case progressiveJPEG = "JPEG progressive"
        case png = "PNG"
        case webp = "WebP"
        case animatedGIF = "GIF animated"
        case animatedWebP = "WebP animated"
        case apng = "APNG"

        var format: ImageFormat {
            switch self {
            case .jpeg, .progressiveJPEG: .jpeg
            case .png, .apng: .png
            case .webp, .animatedWebP: .webp
            case .animatedGIF: .gif
            }
        }

        var isAnimated: Bool { self == .animatedGIF || self == .animatedWebP || self == .apng }
    }

    /// File name on the server, e.g. `img-007.webp`.
    let name: String
    let kind: Kind
    let data: Data
}

/// Generates the demo's images in memory with the library's own encoders.
///
/// Every ten images: two baseline JPEGs, one progressive JPEG, two PNGs, two still WebPs, one animated GIF, one
/// animated WebP and one APNG. Stills are 240–400 × 180–300 pixels, animations 120–150 × 90 with 6 frames.
enum DemoImageSet {
    static let cycle: [DemoImage.Kind] = [.jpeg, .progressiveJPEG, .png, .webp, .jpeg, .animatedGIF, .animatedWebP,
                                          .png, .apng, .webp]

    static func make(count: Int) throws -> [DemoImage] {
        try (0..<count).map { try make(index: $0) }
    }

    static func make(index: Int) throws -> DemoImage {
        let kind = cycle[index % cycle.count]
        let image: Image
        if kind.isAnimated {
            let size = PixelSize(width: 120 + index % 4 * 10, height: 90)
            let frames = try (0..<6).map { frame in
                ImageFrame(pixels: try DemoPatterns.animationFrame(index, frame: frame, count: 6, size: size,
                                                                   alpha: kind != .animatedGIF),
                           duration: 0.1)
            }
            image = Image(frames: frames, loopCount: 0, format: kind.format)
        } else {
            let size = PixelSize(width: 240 + index * 37 % 5 * 40, height: 180 + index * 53 % 4 * 40)
            image = Image(pixels: try DemoPatterns.still(index, size: size), format: kind.format, hasAlpha: false)
        }
        var options = EncodeOptions(quality: 0.85)
        options.progressive = kind == .progressiveJPEG
        let data = try ImageCoders.shared.encode(image, as: kind.format, options: options)
        let number = index < 10 ? "00\(index)" : index < 100 ? "0\(index)" : "\(index)"
        return DemoImage(name: "img-\(number).\(kind.format.fileExtension)", kind: kind, data: data)
    }
}
