import Foundation

/// The metadata items of an AVIF or HEIF file (ISO BMFF, HEIF's item structure): the `Exif` item and the `mime`
/// item of type `application/rdf+xml` (XMP), found through the `meta` box's item information (`iinf`) and
/// located through its item locations (`iloc`). Every size and offset is checked against the data: a damaged
/// file yields no metadata, never a read outside it.
enum ISOBMFFMetadataItems {
    static func metadata(in bytes: UnsafeRawBufferPointer) -> ImageMetadata? {
        guard let meta = ISOBMFFBoxes.boxes(in: bytes).first(where: { $0.type == "meta" }), meta.payload.count > 4 else {
            return nil
        }
        let children = ISOBMFFBoxes.boxes(in: bytes, range: meta.payload.lowerBound + 4..<meta.payload.upperBound)  // full box
        guard let iinf = children.first(where: { $0.type == "iinf" }),
              let iloc = children.first(where: { $0.type == "iloc" }) else { return nil }
        let kinds = itemKinds(bytes, iinf.payload)
        guard !kinds.isEmpty else { return nil }
        let locations = itemLocations(bytes, iloc.payload)
        var metadata = ImageMetadata()
        for (item, kind) in kinds {
            guard let extent = locations[item], extent.upperBound <= bytes.count else { continue }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[extent])
            switch kind {
            case .exif where metadata.exif == nil: metadata.exif = ImageMetadata.exifItem(payload)
            case .xmp where metadata.xmp == nil: metadata.xmp = ImageMetadata.bounded(payload)
            default: break
            }
        }
        return metadata
    }

    private enum Kind { case exif, xmp }

    /// The items of `iinf` that hold metadata, by item ID.
    private static func itemKinds(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>) -> [(Int, Kind)] {
        guard payload.count >= 6 else { return [] }
        let entriesStart = payload.lowerBound + 4 + (bytes[payload.lowerBound] == 0 ? 2 : 4)
        guard entriesStart <= payload.upperBound else { return [] }
        var kinds: [(Int, Kind)] = []
        for infe in ISOBMFFBoxes.boxes(in: bytes, range: entriesStart..<payload.upperBound) where infe.type == "infe" {
            let start = infe.payload.lowerBound, end = infe.payload.upperBound
            guard end - start >= 4, bytes[start] >= 2 else { continue }  // versions 2 and 3 name a type
            let idSize = bytes[start] == 2 ? 2 : 4
            let typeAt = start + 4 + idSize + 2
            guard typeAt + 4 <= end else { continue }
            let item = bigEndian(bytes, start + 4, idSize)
            switch String(decoding: bytes[typeAt..<typeAt + 4], as: UTF8.self) {
            case "Exif":
                kinds.append((item, .exif))
            case "mime":
                // The item's name, then its content type, each ended by a zero.
                var strings: [String] = []
                var offset = typeAt + 4
                while strings.count < 2, offset < end, let zero = bytes[offset..<end].firstIndex(of: 0) {
                    strings.append(String(decoding: bytes[offset..<zero], as: UTF8.self))
                    offset = zero + 1
                }
                if strings.count == 2, strings[1] == "application/rdf+xml" { kinds.append((item, .xmp)) }
            default:
                break
            }
        }
        return kinds
    }

    /// Where each item stored in one extent of the file itself lies (the common case for metadata: items made
    /// of several extents or stored in the `idat` box are left out).
    private static func itemLocations(_ bytes: UnsafeRawBufferPointer, _ payload: Range<Int>) -> [Int: Range<Int>] {
        var offset = payload.lowerBound
        let end = payload.upperBound
        func read(_ count: Int) -> Int? {
            guard count >= 0, count <= 8, end - offset >= count else { return nil }
            defer { offset += count }
            return count == 0 ? 0 : bigEndian(bytes, offset, count)
        }
        guard let version = read(1), version <= 2, read(3) != nil, let sizes = read(1), let more = read(1),
              let count = read(version < 2 ? 2 : 4) else { return [:] }
        let offsetSize = sizes >> 4, lengthSize = sizes & 0xF, baseSize = more >> 4
        let indexSize = version == 0 ? 0 : more & 0xF
        var locations: [Int: Range<Int>] = [:]
        for _ in 0..<min(count, ISOBMFFBoxes.defaultLimit) {
            guard let item = read(version < 2 ? 2 : 4) else { break }
            var method = 0
            if version >= 1 { guard let value = read(2) else { break }; method = value & 0xF }
            guard read(2) != nil, let base = read(baseSize), let extents = read(2) else { break }
            var ranges: [(Int, Int)] = []
            for _ in 0..<extents {
                guard read(indexSize) != nil, let start = read(offsetSize), let length = read(lengthSize) else {
                    return locations
                }
                ranges.append((start, length))
            }
            guard method == 0, ranges.count == 1, let (start, length) = ranges.first,
                  start >= 0, length > 0, base >= 0, base <= bytes.count, start <= bytes.count - base,
                  length <= bytes.count - base - start else { continue }
            locations[item] = base + start..<base + start + length
        }
        return locations
    }

    /// The big-endian number in `count` (at most 8) bytes at `offset`, which the caller has bounds-checked.
    private static func bigEndian(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ count: Int) -> Int {
        Int(truncatingIfNeeded: ISOBMFFBoxes.bigEndian(bytes, at: offset, count: count))
    }
}
