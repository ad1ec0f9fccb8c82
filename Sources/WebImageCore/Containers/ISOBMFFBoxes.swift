/// One box of an ISO base media file (the container of HEIF, AVIF, JPEG XL and MP4): its four-character type
/// and where its payload lies.
package struct ISOBMFFBox: Sendable, Equatable {
    /// The four-character type, `ftyp`, `meta`, `moov`…
    package let type: String
    /// The offset of the box's size field.
    package let start: Int
    /// The bytes after the header; for a box cut by the end of the walked range, only what is there.
    package let payload: Range<Int>
    /// Whether the box lies whole inside the walked range.
    package let isWhole: Bool
}

/// The one walker of ISO BMFF boxes laid end to end (ISO/IEC 14496-12 §4.2): 32-bit sizes, a 64-bit size after
/// the type when the size is 1, and a size of 0 for a box that runs to the end. Every size is checked against
/// the range walked: a damaged file stops the walk, never a read outside it.
package enum ISOBMFFBoxes {
    /// Why a walk ended.
    package enum End: Sendable, Equatable {
        /// The last box ended exactly at the range's end (or ran to it with a size of 0).
        case complete
        /// The range ends inside the box starting at this offset, or inside its header.
        case cut(at: Int)
        /// The box at this offset states a size smaller than its own header.
        case badSize(at: Int)
        /// The walk read its limit of boxes.
        case limit
    }

    /// At most this many boxes are read at one level unless the caller says otherwise: real files have a
    /// handful at the top, and a few dozen items below `meta`.
    package static let defaultLimit = 4096

    /// The boxes in `range` of `bytes` (the whole data by default), the last one cut short when the range ends
    /// inside it, and why the walk ended.
    package static func walk(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil,
                             limit: Int = defaultLimit) -> (boxes: [ISOBMFFBox], end: End) {
        let range = range ?? 0..<bytes.count
        var boxes: [ISOBMFFBox] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard boxes.count < limit else { return (boxes, .limit) }
            let left = range.upperBound - offset
            guard left >= 8 else { return (boxes, .cut(at: offset)) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            var size = bigEndian(bytes, at: offset, count: 4)
            var header = 8
            if size == 1 {
                guard left >= 16 else {
                    boxes.append(ISOBMFFBox(type: type, start: offset, payload: range.upperBound..<range.upperBound,
                                            isWhole: false))
                    return (boxes, .cut(at: offset))
                }
                size = bigEndian(bytes, at: offset + 8, count: 8)
                header = 16
            } else if size == 0 {
                size = UInt64(left)
            }
            guard size >= UInt64(header) else { return (boxes, .badSize(at: offset)) }
            guard size <= UInt64(left) else {
                boxes.append(ISOBMFFBox(type: type, start: offset, payload: (offset + header)..<range.upperBound,
                                        isWhole: false))
                return (boxes, .cut(at: offset))
            }
            boxes.append(ISOBMFFBox(type: type, start: offset, payload: (offset + header)..<(offset + Int(size)),
                                    isWhole: true))
            offset += Int(size)
        }
        return (boxes, .complete)
    }

    /// The whole boxes in `range` of `bytes`, up to the first that is cut or damaged.
    package static func boxes(in bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil,
                              limit: Int = defaultLimit) -> [ISOBMFFBox] {
        walk(bytes, range: range, limit: limit).boxes.filter(\.isWhole)
    }

    /// The payload of the box reached by descending through `path`'s types from `range`, taking the first box
    /// of each type at each level.
    package static func payload(at path: [String], in range: Range<Int>,
                                of bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        var current = range
        for type in path {
            guard let box = boxes(in: bytes, range: current).first(where: { $0.type == type }) else { return nil }
            current = box.payload
        }
        return current
    }

    /// The big-endian number in `count` (at most 8) bytes at `offset`, which the caller has bounds-checked.
    package static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, count: Int) -> UInt64 {
        bytes[offset..<(offset + count)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
