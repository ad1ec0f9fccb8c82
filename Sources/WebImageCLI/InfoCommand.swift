import ArgumentParser
import Foundation
import WebImage

/// `webimage info`: what each input is.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print format, size, frames, loop count, alpha, orientation and byte count of images.",
        discussion: """
            Width and height are after EXIF orientation. With --json, one object per line: \
            {"source":…,"format":…,"width":…,"height":…,"frames":…,"loopCount":…,"hasAlpha":…,"orientation":…,"bytes":…} \
            or {"source":…,"error":{"code":…,"message":…}} for an input that cannot be read.

            Examples:
              webimage info photo.jpg
              webimage info --json *.png
            """
    )

    @Argument(help: "Image files, file:// URLs, or - for standard input.")
    var inputs: [String]

    @Flag(help: "One JSON object per input per line.")
    var json = false

    func run() async throws {
        var failures = 0
        for source in inputs {
            do {
                let data = try InputReader.read(source)
                let image = try ImageCoders.shared.decode(data)
                report(source: source, image: image, bytes: data.count)
            } catch {
                failures += 1
                let imageError = Console.imageError(error)
                if json {
                    Console.line(JSONValue.object([("source", .string(source)), ("error", Console.json(imageError))]).text)
                }
                Console.error("\(source): \(imageError)")
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    private func report(source: String, image: Image, bytes: Int) {
        if json {
            Console.line(JSONValue.object([
                ("source", .string(source)),
                ("format", .string(image.format.rawValue)),
                ("width", .int(image.size.width)),
                ("height", .int(image.size.height)),
                ("frames", .int(image.frames.count)),
                ("loopCount", .int(image.loopCount)),
                ("hasAlpha", .bool(image.hasAlpha)),
                ("orientation", .int(image.orientation.rawValue)),
                ("bytes", .int(bytes)),
            ]).text)
        } else {
            var line = "\(source): \(image.format.rawValue) \(image.size.width)x\(image.size.height)"
            if image.isAnimated { line += ", \(image.frames.count) frames, loop \(image.loopCount)" }
            if image.hasAlpha { line += ", alpha" }
            if image.orientation != .up { line += ", orientation \(image.orientation.rawValue)" }
            Console.line(line + ", \(bytes) bytes")
        }
    }
}
