import ArgumentParser
import Foundation
import WebImage

/// `webimage info`: what each input is.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, size, frames, loop count, alpha, orientation and byte count of images.",
        discussion: """
            Read from each file's headers alone: no pixel is decoded, so a 12 MP photo or a 1 000-frame GIF costs \
            a few kilobytes. Width and height are after EXIF orientation. With --json, one object per line: \
            {"source":…,"format":…,"width":…,"height":…,"frames":…,"loopCount":…,"hasAlpha":…,"orientation":…,"bytes":…,\
            "colorSpace":…,"colorProfile":…} \
            or {"source":…,"error":{"code":…,"message":…}} for an input that cannot be read ("format" is added \
            when the bytes are of a known format this build cannot read).

            --blurhash, --thumbhash, --average, --phash, --palette and --dominant-colors add "blurHash", \
            "thumbHash" (base64), "averageColor" (#rrggbbaa, null when every pixel is transparent), \
            "perceptualHash" (16 hex digits), "palette" (an array of #rrggbbaa) and "dominantColors" (an object of \
            six roles): these decode the image, fitted in 100x100 pixels (first frame, orientation applied, sRGB), \
            as none of them needs more. --hashsums adds "hashsums", an object of the file's checksums by name.

            Examples:
              webimage info photo.jpg
              webimage info --json *.png
              webimage info --json --blurhash 4:3 --thumbhash --average photo.jpg
            """
    )

    @Argument(help: "Image files, file:// URLs, or - for standard input.")
    var inputs: [String]

    @Flag(help: "One JSON object per input per line.")
    var json = false

    @OptionGroup var pixelDescription: PixelDescriptionOptions

    @Option(name: .customLong("hashsums"), help: ArgumentHelp(
        "Add checksums of the file's bytes: a comma-separated list of md5, sha1, sha256, sha512.", valueName: "LIST"))
    var hashSums: HashSumList?

    func run() async throws {
        var failures = 0
        for source in inputs {
            var detected = ImageFormat.unknown
            do {
                let data = try InputReader.read(source)
                detected = ImageFormat.detect(data)
                let properties = try ImageCoders.shared.properties(of: data)
                report(source: source, properties: properties, bytes: data.count,
                       described: try pixelDescription.describe(data, source: source) + checksums(of: data))
            } catch {
                failures += 1
                let imageError = Console.imageError(error)
                var fields: [(String, JSONValue)] = [("source", .string(source))]
                if detected != .unknown { fields.append(("format", .string(detected.rawValue))) }
                if json { Console.line(JSONValue.object(fields + [("error", Console.json(imageError))]).text) }
                Console.error("\(source): \(detected == .unknown ? "" : detected.rawValue + ", ")\(imageError)")
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    private func checksums(of data: Data) -> [(String, JSONValue)] {
        guard let hashSums else { return [] }
        return [("hashsums", .object(hashSums.sums.map { ($0.rawValue, .string($0.hex(of: data))) }))]
    }

    private func report(source: String, properties: ImageProperties, bytes: Int,
                        described: [(String, JSONValue)]) {
        if json {
            Console.line(JSONValue.object([
                ("source", .string(source)),
                ("format", .string(properties.format.rawValue)),
                ("width", .int(properties.size.width)),
                ("height", .int(properties.size.height)),
                ("frames", .int(properties.frameCount)),
                ("loopCount", .int(properties.loopCount)),
                ("hasAlpha", .bool(properties.hasAlpha)),
                ("orientation", .int(properties.orientation.rawValue)),
                ("bytes", .int(bytes)),
                ("colorSpace", .string(properties.colorSpace.rawValue)),
                ("colorProfile", properties.colorProfile?.name.map(JSONValue.string) ?? .null),
            ] + described).text)
        } else {
            var line = "\(source): \(properties.format.rawValue) \(properties.size.width)x\(properties.size.height)"
            if properties.frameCount > 1 {
                line += properties.isAnimated
                    ? ", \(properties.frameCount) frames, loop \(properties.loopCount)"
                    : ", \(properties.frameCount) pages"
            }
            if properties.hasAlpha { line += ", alpha" }
            if properties.orientation != .up { line += ", orientation \(properties.orientation.rawValue)" }
            if properties.colorSpace != .sRGB || properties.colorProfile != nil {
                line += ", \(properties.colorSpace.rawValue)"
                if let name = properties.colorProfile?.name { line += " (\(name))" }
            }
            for (name, value) in described {
                switch value {
                case .null: line += ", no \(name)"
                case .array(let items): line += ", \(name) " + items.map(\.plainText).joined(separator: " ")
                case .object(let fields):
                    line += ", \(name) " + fields.map { "\($0.0) \($0.1.plainText)" }.joined(separator: " ")
                default: line += ", \(name) \(value.plainText)"
                }
            }
            Console.line(line + ", \(bytes) bytes")
        }
    }
}

/// `--hashsums md5,sha256`: checksum names, each once, in the order given.
struct HashSumList: ExpressibleByArgument {
    let sums: [HashSum]

    init?(argument: String) {
        var sums: [HashSum] = []
        for name in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let sum = HashSum(rawValue: name.lowercased()) else { return nil }
            if !sums.contains(sum) { sums.append(sum) }
        }
        self.sums = sums
    }
}
