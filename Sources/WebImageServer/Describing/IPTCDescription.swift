import Foundation
import WebImage

/// A Photoshop resource block as the `/info` answer's `iptc` object (the IPTC-IIM application record's datasets
/// by their IIM names; the repeatable ones, keywords and the like, as arrays) and its `photoshop` object (the
/// resolution resource).
enum IPTCDescription {
    /// The application record's datasets named in an answer, and whether each may repeat.
    private static let names: [UInt8: (name: String, repeats: Bool)] = [
        5: ("Name", false), 7: ("Edit Status", false), 10: ("Urgency", false), 15: ("Category", false),
        20: ("Supplemental Category", true), 22: ("Fixture Identifier", false), 25: ("Keywords", true),
        40: ("Special Instructions", false), 55: ("Date Created", false), 60: ("Time Created", false),
        65: ("Originating Program", false), 80: ("By-line", true), 85: ("By-line Title", true), 90: ("City", false),
        92: ("Sub-location", false), 95: ("Province/State", false), 100: ("Country/Primary Location Code", false),
        101: ("Country/Primary Location Name", false), 103: ("Original Transmission Reference", false),
        105: ("Headline", false), 110: ("Credit", false), 115: ("Source", false), 116: ("Copyright Notice", false),
        118: ("Contact", true), 120: ("Caption", false), 122: ("Writer/Editor", true),
    ]

    /// Photoshop's resolution resource.
    private static let resolutionResource: UInt16 = 0x03ED

    /// The `iptc` object's fields (empty when the block holds no IPTC).
    static func fields(_ block: Data) -> [(String, JSONValue)] {
        let bytes = [UInt8](block)
        guard let iptc = IPTCCopyright.resource(IPTCCopyright.iptcResource, in: bytes),
              let datasets = IPTCCopyright.datasets(in: iptc) else { return [] }
        var order: [String] = []
        var values: [String: [String]] = [:]
        var repeats: [String: Bool] = [:]
        for dataset in datasets where dataset.record == 2 {
            guard let known = names[dataset.number] else { continue }
            let text = String(decoding: iptc[dataset.value], as: UTF8.self).trimmingCharacters(in: .controlCharacters)
            if values[known.name] == nil { order.append(known.name) }
            values[known.name, default: []].append(text)
            repeats[known.name] = known.repeats
        }
        return order.map { name in
            let texts = values[name]!
            return (name, repeats[name]! ? .array(texts.map(JSONValue.string)) : .string(texts.last!))
        }
    }

    /// The `photoshop` object's fields: `resolution`, when the block has the resolution resource.
    static func photoshopFields(_ block: Data) -> [(String, JSONValue)] {
        guard let data = IPTCCopyright.resource(resolutionResource, in: [UInt8](block)), data.count >= 16 else {
            return []
        }
        func fixed(_ offset: Int) -> Double {
            Double(data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }) / 65_536
        }
        func unit(_ offset: Int) -> Int { Int(data[offset]) << 8 | Int(data[offset + 1]) }
        func resolutionUnit(_ code: Int) -> String { code == 2 ? "cm" : "inches" }
        func sizeUnit(_ code: Int) -> String {
            switch code {
            case 2: "cm"
            case 3: "points"
            case 4: "picas"
            case 5: "columns"
            default: "inches"
            }
        }
        func number(_ value: Double) -> JSONValue {
            value == value.rounded() ? .int(Int(value)) : .double(value)
        }
        return [("resolution", .object([
            ("XResolution", number(fixed(0))), ("XResolutionUnit", .string(resolutionUnit(unit(4)))),
            ("WidthUnit", .string(sizeUnit(unit(6)))),
            ("YResolution", number(fixed(8))), ("YResolutionUnit", .string(resolutionUnit(unit(12)))),
            ("HeightUnit", .string(sizeUnit(unit(14)))),
        ]))]
    }
}
