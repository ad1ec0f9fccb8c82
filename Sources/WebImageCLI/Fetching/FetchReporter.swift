import Foundation
import WebImage

/// Prints (and with `--out`, saves) each fetch result, in the order given.
struct FetchReporter {
    let json: Bool
    let quiet: Bool
    let folder: URL?
    /// Whether the saved file is the encoded result (thumbnail or transforms) rather than the original bytes.
    let encodesResult: Bool
    private var naming = OutputNaming()
    private(set) var failures = 0

    init(json: Bool, quiet: Bool, folder: URL?, encodesResult: Bool) {
        self.json = json
        self.quiet = quiet
        self.folder = folder
        self.encodesResult = encodesResult
    }

    mutating func report(_ source: String, _ result: Result<LoadedImage, ImageError>) {
        let saved: Result<(LoadedImage, String?), ImageError>
        switch result {
        case .success(let loaded): saved = save(loaded)
        case .failure(let error): saved = .failure(error)
        }
        switch saved {
        case .success(let (loaded, path)):
            let bytes = loaded.byteCount
            if json {
                var fields: [(String, JSONValue)] = [
                    ("url", .string(source)), ("status", .string("ok")),
                    ("cacheType", .string(loaded.cacheType.jsonName)),
                    ("format", .string(loaded.image.format.rawValue)),
                    ("width", .int(loaded.image.size.width)), ("height", .int(loaded.image.size.height)),
                    ("bytes", .int(bytes)),
                ]
                if let path { fields.append(("path", .string(path))) }
                Console.line(JSONValue.object(fields).text)
            } else if !quiet {
                var line = "\(source): \(loaded.image.format.rawValue) \(loaded.image.size.width)x\(loaded.image.size.height)"
                line += ", \(bytes) bytes, " + (loaded.cacheType == .none ? "from the network" : "from \(loaded.cacheType.jsonName)")
                if let path { line += " -> \(path)" }
                Console.line(line)
            }
        case .failure(let error):
            failures += 1
            if json {
                Console.line(JSONValue.object([
                    ("url", .string(source)), ("status", .string("error")), ("error", Console.json(error)),
                ]).text)
            }
            Console.error("\(source): \(error)")
        }
    }

    /// Writes the image into the output folder (when there is one) and returns the path written.
    private mutating func save(_ loaded: LoadedImage) -> Result<(LoadedImage, String?), ImageError> {
        guard let folder else { return .success((loaded, nil)) }
        let format = Self.outputFormat(for: loaded.image.format)
        let name = naming.name(for: loaded.url, hashExtension: (encodesResult ? format : loaded.image.format).fileExtension)
        do {
            let bytes: Data
            if !encodesResult, let data = loaded.data {
                bytes = data
            } else {
                bytes = try ImageCoders.shared.encode(loaded.image, as: format)
            }
            return .success((loaded, try OutputFolder.write(bytes, named: name, in: folder).path))
        } catch {
            return .failure(Console.imageError(error))
        }
    }

    /// The format a transformed image is saved in: its own when this library writes it, else PNG.
    static func outputFormat(for format: ImageFormat) -> ImageFormat {
        ImageCoders.shared.canEncode(to: format) ? format : .png
    }
}
