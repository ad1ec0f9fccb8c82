import Foundation
import WebImage

/// Reads the URL list of `prefetch --input FILE|-`: one URL per line; blank lines and lines starting with `#`
/// are skipped, surrounding spaces trimmed.
enum URLListReader {
    /// The lines of `source` (a path, or `-` for standard input) that name URLs.
    static func read(_ source: String) throws -> [String] {
        let data: Data
        if source == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
                throw ImageError(.io, "cannot read the URL list \(source): no such file")
            }
            guard !isDirectory.boolValue, let contents = FileManager.default.contents(atPath: source) else {
                throw ImageError(.io, "cannot read the URL list \(source)")
            }
            data = contents
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// The URL lines of `text`.
    static func parse(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// `text` as an absolute URL with a scheme, or an ``ImageError/Code/invalidURL`` error.
    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
            throw ImageError(.invalidURL, "not a URL: \(text)")
        }
        return url
    }
}
