import WebImage
import Foundation

/// An EXIF block as the `/info` answer's `exif` object: each known tag of the main directory and of the Exif and
/// GPS sub-directories by its title or canonical name (``EXIFTags``), its value as text: text as written,
/// numbers in decimal, rationals as `numerator/denominator`, several values separated by spaces, an undefined
/// value of printable ASCII (versions, `0232`) as that text. Unreadable or unknown entries are left out.
enum EXIFDescription {
    static func fields(_ block: Data, canonicalNames: Bool) -> [(String, JSONValue)] {
        guard let main = EXIFDirectory(block) else { return [] }
        var fields: [(String, JSONValue)] = []
        var seen = Set<String>()
        func add(_ directory: EXIFDirectory, names: [UInt16: EXIFTags.Tag]) {
            for entry in directory.entries {
                guard let tag = names[entry.tag], let text = text(of: directory.value(of: entry)) else { continue }
                let name = canonicalNames ? tag.name : tag.title
                guard seen.insert(name).inserted else { continue }
                fields.append((name, .string(text)))
            }
        }
        add(main, names: EXIFTags.image)
        if let exif = main.subdirectory(EXIFDirectory.exifPointerTag) { add(exif, names: EXIFTags.image) }
        if let gps = main.subdirectory(EXIFDirectory.gpsPointerTag) { add(gps, names: EXIFTags.gps) }
        return fields
    }

    /// A value as text; `nil` for an undefined value that is not printable text.
    static func text(of value: EXIFDirectory.Value) -> String? {
        switch value {
        case .text(let text):
            return text.trimmingCharacters(in: .whitespaces)
        case .integers(let numbers):
            return numbers.map(String.init).joined(separator: " ")
        case .rationals(let pairs):
            return pairs.map { "\($0.numerator)/\($0.denominator)" }.joined(separator: " ")
        case .bytes(let bytes):
            let trimmed = bytes.prefix { $0 != 0 }
            guard !trimmed.isEmpty, trimmed.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            return String(decoding: trimmed, as: UTF8.self)
        }
    }
}
