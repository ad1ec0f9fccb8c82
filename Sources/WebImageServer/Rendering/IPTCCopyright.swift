import Foundation

/// The copyright part of IPTC metadata, as it sits in a JPEG: a Photoshop image resource block (`8BIM`
/// resources), whose resource 0x0404 holds IPTC datasets. Of the application record (2) only the by-line (80),
/// credit (110) and copyright notice (116) are kept; other records (the envelope) stay as they are.
enum IPTCCopyright {
    static let iptcResource: UInt16 = 0x0404

    /// A resource block holding only the kept datasets; `nil` when there are none or the block is unreadable.
    static func kept(_ block: Data) -> Data? {
        let bytes = [UInt8](block)
        guard let iptc = resource(iptcResource, in: bytes), let datasets = datasets(in: iptc) else { return nil }
        var kept: [UInt8] = []
        for dataset in datasets where dataset.record != 2 || [80, 110, 116].contains(dataset.number) {
            kept += iptc[dataset.whole]
        }
        guard !kept.isEmpty else { return nil }
        // One resource: signature, ID, an empty name (its length byte and a pad byte), size, data, even padding.
        var out: [UInt8] = Array("8BIM".utf8) + [UInt8(iptcResource >> 8), UInt8(iptcResource & 0xFF), 0, 0]
        out += [UInt8(kept.count >> 24 & 0xFF), UInt8(kept.count >> 16 & 0xFF), UInt8(kept.count >> 8 & 0xFF),
                UInt8(kept.count & 0xFF)]
        out += kept
        if kept.count % 2 == 1 { out.append(0) }
        return Data(out)
    }

    /// One IPTC dataset: its record and number, where it lies whole (tag included) and where its value lies.
    struct Dataset {
        let record: UInt8
        let number: UInt8
        let whole: Range<Int>
        let value: Range<Int>
    }

    /// The datasets of IPTC data (resource 0x0404's), in order; `nil` when one runs past the end.
    static func datasets(in iptc: [UInt8]) -> [Dataset]? {
        var datasets: [Dataset] = []
        var offset = 0
        while offset + 5 <= iptc.count, iptc[offset] == 0x1C {
            var length = Int(iptc[offset + 3]) << 8 | Int(iptc[offset + 4])
            var header = 5
            if length & 0x8000 != 0 {  // an extended dataset: the low bits say how many bytes give the length
                let lengthBytes = length & 0x7FFF
                guard lengthBytes <= 4, offset + 5 + lengthBytes <= iptc.count else { return nil }
                length = iptc[(offset + 5)..<(offset + 5 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                header += lengthBytes
            }
            let end = offset + header + length
            guard end <= iptc.count else { return nil }
            datasets.append(Dataset(record: iptc[offset + 1], number: iptc[offset + 2], whole: offset..<end,
                                    value: (offset + header)..<end))
            offset = end
        }
        return datasets
    }

    /// The data of resource `id` in a block of `8BIM` resources.
    static func resource(_ id: UInt16, in bytes: [UInt8]) -> [UInt8]? {
        var offset = 0
        while offset + 12 <= bytes.count, bytes[offset..<offset + 4].elementsEqual("8BIM".utf8) {
            let found = UInt16(bytes[offset + 4]) << 8 | UInt16(bytes[offset + 5])
            // A Pascal string padded to an even length, its length byte included.
            let nameLength = Int(bytes[offset + 6])
            let sizeAt = offset + 6 + (nameLength + 2) / 2 * 2
            guard sizeAt + 4 <= bytes.count else { return nil }
            let size = bytes[sizeAt..<sizeAt + 4].reduce(0) { $0 << 8 | Int($1) }
            let data = sizeAt + 4
            guard size <= bytes.count - data else { return nil }
            if found == id { return Array(bytes[data..<data + size]) }
            offset = data + size + (size & 1)
        }
        return nil
    }
}
