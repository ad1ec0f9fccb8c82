import Foundation
import WebImage

/// Where the commands write: results to stdout, one-line errors to stderr.
enum Console {
    /// Prints one line to standard output.
    static func line(_ text: String) {
        print(text)
    }

    /// Prints one line to standard error, prefixed with the tool's name.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data("webimage: \(text)\n".utf8))
    }

    /// The JSON form of an error, as the contract spells it: `{"code":…, "message":…}`.
    static func json(_ error: ImageError) -> JSONValue {
        .object([("code", .string(error.code.rawValue)), ("message", .string(error.message))])
    }

    /// Any error as an ``ImageError`` (file-system and other foreign errors become `io`).
    static func imageError(_ error: any Error) -> ImageError {
        if let error = error as? ImageError { return error }
        return ImageError(.io, error.localizedDescription)
    }
}
