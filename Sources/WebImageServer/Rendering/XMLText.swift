import Foundation

/// What reading and writing XML from untrusted files needs, for documents parsed and written anew (sanitised SVG,
/// filtered XMP).
enum XMLText {
    /// Whether `data` may be given to Foundation's `XMLParser`: only UTF-8 text. Its libxml2 callbacks trap on a
    /// name that is not valid UTF-8 (`<\u{FC}lt>` is enough), which would take the whole server down; documents in
    /// other encodings are refused with them.
    static func isParseable(_ data: Data) -> Bool {
        String(validating: data, as: UTF8.self) != nil
    }

    /// `text` with the characters that would end text or an attribute value escaped.
    static func escaped(_ text: String, quotes: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The part of a qualified name after its prefix.
    static func localName(_ name: String) -> String {
        name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    /// The prefix of a qualified name; empty when there is none.
    static func prefix(_ name: String) -> String {
        name.firstIndex(of: ":").map { String(name[..<$0]) } ?? ""
    }
}
