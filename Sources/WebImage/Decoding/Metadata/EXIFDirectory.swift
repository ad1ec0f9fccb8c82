import Foundation

/// The first image file directory (IFD0) of an EXIF block: its entries, found with every offset bounds-checked,
/// so hostile metadata reads as nothing rather than a crash. Enough to set the orientation and to read the text
/// tags (artist, copyright) that survive stripping.
package struct EXIFDirectory {
    /// One 12-byte entry: tag, type, count, and where its value lies in the block.
    package struct Entry {
        package var tag: UInt16
        package var type: UInt16
        package var count: Int
        /// The offset of the value: inside the entry when it fits in four bytes, else where the entry points.
        package var valueOffset: Int
    }

    /// The whole block, starting at the TIFF header (an array: indices from 0 whatever the input was a slice of).
    var bytes: [UInt8]
    /// The whole block, starting at the TIFF header.
    package var data: Data { Data(bytes) }
    package let littleEndian: Bool
    package let entries: [Entry]

    package static let orientationTag: UInt16 = 0x0112
    package static let artistTag: UInt16 = 0x013B
    package static let copyrightTag: UInt16 = 0x8298

    /// The directory of `block` (a TIFF structure, with or without the `Exif\0\0` prefix); `nil` when it is not one.
    package init?<Bytes: Collection>(_ block: Bytes) where Bytes.Element == UInt8 {
        var tiff = [UInt8](block)
        if tiff.count >= 6, tiff.prefix(6).elementsEqual(Array("Exif".utf8) + [0, 0]) { tiff.removeFirst(6) }
        guard tiff.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        guard Self.read16(tiff, 2, littleEndian) == 42, let start = Self.read32(tiff, 4, littleEndian) else { return nil }
        self.init(tiff: tiff, littleEndian: littleEndian, start: Int(start))
    }

    /// The directory at `start` in `tiff`; `nil` when no entry count can be read there.
    init?(tiff: [UInt8], littleEndian: Bool, start: Int) {
        guard let count = Self.read16(tiff, start, littleEndian) else { return nil }
        bytes = tiff
        self.littleEndian = littleEndian
        var entries: [Entry] = []
        for index in 0..<Int(count) {
            let offset = start + 2 + index * 12
            guard let tag = Self.read16(tiff, offset, littleEndian), let type = Self.read16(tiff, offset + 2, littleEndian),
                  let count = Self.read32(tiff, offset + 4, littleEndian) else { break }
            let size = Self.typeSize(type) * Int(count)
            let valueOffset = size <= 4 ? offset + 8 : Int(Self.read32(tiff, offset + 8, littleEndian) ?? UInt32.max)
            guard size >= 0, valueOffset <= tiff.count, size <= tiff.count - valueOffset else { continue }
            entries.append(Entry(tag: tag, type: type, count: Int(count), valueOffset: valueOffset))
        }
        self.entries = entries
    }

    /// The orientation entry's value, when there is one of type SHORT holding a valid orientation.
    package var orientation: Orientation? {
        guard let entry = entries.first(where: { $0.tag == Self.orientationTag }), entry.type == 3,
              let value = Self.read16(bytes, entry.valueOffset, littleEndian) else { return nil }
        return Orientation(rawValue: Int(value))
    }

    /// The text of an ASCII entry, without its terminating zero; `nil` when there is none.
    package func text(of tag: UInt16) -> String? {
        guard let entry = entries.first(where: { $0.tag == tag }), entry.type == 2, entry.count > 0 else { return nil }
        let text = bytes[entry.valueOffset..<entry.valueOffset + entry.count]
        return String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Sets an orientation entry to 1 (upright); `false` when there is none to set.
    package mutating func setOrientationUp() -> Bool {
        guard let entry = entries.first(where: { $0.tag == Self.orientationTag && $0.type == 3 && $0.count == 1 })
        else { return false }
        bytes[entry.valueOffset] = littleEndian ? 1 : 0
        bytes[entry.valueOffset + 1] = littleEndian ? 0 : 1
        return true
    }

    /// A new block with one directory of ASCII entries, big-endian as most cameras write: what is left of an
    /// EXIF block stripped down to a few tags.
    package static func block(texts: [(tag: UInt16, text: String)]) -> Data {
        let sorted = texts.sorted { $0.tag < $1.tag }  // TIFF wants entries in ascending tag order
        var out: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        func append16(_ value: Int) { out += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func append32(_ value: Int) { out += [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF),
                                              UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        append16(sorted.count)
        var values: [UInt8] = []
        let valuesStart = 8 + 2 + 12 * sorted.count + 4
        for entry in sorted {
            let bytes = Array(entry.text.utf8) + [0]
            append16(Int(entry.tag))
            append16(2)
            append32(bytes.count)
            if bytes.count <= 4 {
                out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                append32(valuesStart + values.count)
                values += bytes
                if values.count % 2 == 1 { values.append(0) }  // values start on word boundaries
            }
        }
        append32(0)  // no next directory
        return Data(out + values)
    }

    static func typeSize(_ type: UInt16) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11: 4
        case 5, 10, 12: 8
        default: 1
        }
    }

    static func read16(_ data: [UInt8], _ offset: Int, _ littleEndian: Bool) -> UInt16? {
        guard offset >= 0, offset <= data.count - 2 else { return nil }
        let a = UInt16(data[offset]), b = UInt16(data[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    static func read32(_ data: [UInt8], _ offset: Int, _ littleEndian: Bool) -> UInt32? {
        guard let first = read16(data, offset, littleEndian), let second = read16(data, offset + 2, littleEndian)
        else { return nil }
        return littleEndian ? UInt32(second) << 16 | UInt32(first) : UInt32(first) << 16 | UInt32(second)
    }
}
