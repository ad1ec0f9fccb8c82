import Foundation

/// The variables of an env file (`--env-file`), the format imgproxy deployments keep their settings in and Docker,
/// Compose and systemd read: one `NAME=value` a line; blank lines and lines starting with `#` are skipped; a line
/// may start with `export `; a value may be in single quotes (taken as written) or double quotes (where `\n`,
/// `\t`, `\"`, `\\` and `\$` are read as escapes); an unquoted value is trimmed and ends before a ` #` comment.
enum EnvironmentFile {
    /// The variables of the file at `path`.
    /// - Throws: ``ServeError`` naming the file when it cannot be read, or the file and line of the first line
    ///   that is not a variable.
    static func variables(atPath path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServeError("--env-file \(path): cannot be read")
        }
        do {
            return try variables(in: String(decoding: data, as: UTF8.self))
        } catch {
            throw ServeError("--env-file \(path) line \(error.line): \(error.reason)")
        }
    }

    /// The variables of an env file's text (a name given twice keeps its last value, as a shell would).
    static func variables(in text: String) throws(LineError) -> [String: String] {
        var variables = [String: String]()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r"))))
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("export "), line.contains("=") {
                line = line.dropFirst("export ".count).drop { $0 == " " || $0 == "\t" }
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw LineError(line: index + 1, reason: "expected NAME=value")
            }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard isName(name) else {
                throw LineError(line: index + 1, reason: "\"\(name.prefix(40))\" is not a variable name")
            }
            let rest = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            guard let value = Self.value(rest) else {
                throw LineError(line: index + 1, reason: "the quote around \(name)'s value is not closed")
            }
            variables[name] = value
        }
        return variables
    }

    /// A line of an env file that is not a variable.
    struct LineError: Error {
        let line: Int
        let reason: String
    }

    /// Letters, digits and `_`, not starting with a digit: what a shell takes as a variable name.
    private static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first),
              first.isASCII else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }

    /// The value after `=`: quoted (what follows the closing quote is ignored but for a comment) or bare;
    /// `nil` when a quote is not closed.
    private static func value(_ text: Substring) -> String? {
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            // A bare value ends at a comment, which starts with `#` after a space.
            var value = text
            if let comment = text.range(of: " #") ?? text.range(of: "\t#") { value = text[..<comment.lowerBound] }
            return value.trimmingCharacters(in: .whitespaces)
        }
        var result = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == quote { return result }
            if quote == "\"", character == "\\", text.index(after: index) < text.endIndex {
                index = text.index(after: index)
                switch text[index] {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\"", "\\", "$": result.append(text[index])
                default: result.append("\\"); result.append(text[index])
                }
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }
}
