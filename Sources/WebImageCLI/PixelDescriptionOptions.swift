import ArgumentParser
import Foundation
import WebImage

/// `webimage info`'s options that need pixels: placeholder hashes, the perceptual hash and colours, all computed
/// from one decode that fits the image in 100 × 100 pixels (none of them holds more detail than that, and a 12 MP
/// JPEG decodes at an eighth of its size for it).
struct PixelDescriptionOptions: ParsableArguments {
    @Option(name: .customLong("blurhash"), help: ArgumentHelp(
        "Add a BlurHash with X:Y components (1 to 9 each, e.g. 4:3).", valueName: "X:Y"))
    var blurHash: BlurHashComponents?

    @Flag(name: .customLong("thumbhash"), help: "Add a ThumbHash (its bytes in base64).")
    var thumbHash = false

    @Flag(name: .customLong("average"),
          help: "Add the average colour as #rrggbbaa (fully transparent pixels left out).")
    var averageColor = false

    @Flag(name: .customLong("phash"), help: "Add a 64-bit perceptual hash (DCT pHash, 16 hex digits).")
    var perceptualHash = false

    @Option(name: .customLong("palette"), help: ArgumentHelp(
        "Add a palette of at most N colours (2 to 256), the most used first.", valueName: "N"))
    var paletteSize: Int?

    @Flag(name: .customLong("dominant-colors"), help: """
        Add the dominant colours: vibrant, lightVibrant, darkVibrant, muted, lightMuted, darkMuted (null when no \
        colour fits a role).
        """)
    var dominantColors = false

    /// Whether any of them was asked for.
    var isEmpty: Bool {
        blurHash == nil && !thumbHash && !averageColor && !perceptualHash && paletteSize == nil && !dominantColors
    }

    mutating func validate() throws {
        if let paletteSize, !(2...256).contains(paletteSize) {
            throw ValidationError("--palette takes 2 to 256 colours, not \(paletteSize)")
        }
    }

    /// What was asked for of the image in `data`, as JSON fields (`blurHash`, `thumbHash`, `averageColor`,
    /// `perceptualHash`, `palette`, `dominantColors`) in that order; `averageColor` is null for an image with no
    /// pixel that is not fully transparent.
    func describe(_ data: Data, source: String) throws -> [(String, JSONValue)] {
        guard !isEmpty else { return [] }
        let options = DecodeOptions.describing(fileNameHint: source)
        let pixels = try ImageCoders.shared.decode(data, options: options).pixels
        var fields: [(String, JSONValue)] = []
        if let blurHash {
            fields.append(("blurHash", .string(try BlurHash.encode(pixels, componentsX: blurHash.x,
                                                                   componentsY: blurHash.y))))
        }
        if thumbHash {
            fields.append(("thumbHash", .string(Data(try ThumbHash.encode(pixels)).base64EncodedString())))
        }
        if averageColor {
            fields.append(("averageColor", pixels.averageColor().map { .string($0.hexString) } ?? .null))
        }
        if perceptualHash {
            fields.append(("perceptualHash", .string(PerceptualHash.hexString(try PerceptualHash.hash(pixels)))))
        }
        if let paletteSize {
            fields.append(("palette", .array(try pixels.palette(maxColors: paletteSize).map { .string($0.hexString) })))
        }
        if dominantColors {
            let found = try DominantColors(of: pixels)
            let roles: [(String, RGBA?)] = [
                ("vibrant", found.vibrant), ("lightVibrant", found.lightVibrant), ("darkVibrant", found.darkVibrant),
                ("muted", found.muted), ("lightMuted", found.lightMuted), ("darkMuted", found.darkMuted),
            ]
            let values = roles.map { role, colour in (role, colour.map { JSONValue.string($0.hexString) } ?? .null) }
            fields.append(("dominantColors", .object(values)))
        }
        return fields
    }
}

/// `--blurhash X:Y`: BlurHash's component counts across and down.
struct BlurHashComponents: ExpressibleByArgument {
    let x: Int
    let y: Int

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        let range = 1...BlurHash.maximumComponents
        guard parts.count == 2, let x = Int(parts[0]), let y = Int(parts[1]), range.contains(x), range.contains(y)
        else { return nil }
        self.x = x
        self.y = y
    }

    static var defaultValueDescription: String { "X:Y" }
}
