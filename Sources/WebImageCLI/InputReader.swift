import Foundation
import WebImage

/// Reads the bytes an input names: a file path, a `file://` URL, or `-` for standard input.
enum InputReader {
    static func read(_ source: String) throws -> Data {
        if source == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        let path: String
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme.count > 1 {
            guard scheme == "file" else {
                throw ImageError(.invalidURL, "\(scheme): URLs are read by `webimage fetch`; this command reads files")
            }
            path = url.path
        } else {
            path = source
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImageError(.io, "no such file")
        }
        guard !isDirectory.boolValue else { throw ImageError(.io, "is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageError(.io, "cannot read the file")
        }
        return data
    }
}
