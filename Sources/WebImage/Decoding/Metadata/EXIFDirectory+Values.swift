import Foundation

extension EXIFDirectory {
    /// An entry's value, by its TIFF type.
    package enum Value {
        /// ASCII (type 2), without its terminating zero.
        case text(String)
        /// BYTE, SHORT, LONG and their signed kinds.
        case integers([Int])
        /// RATIONAL and SRATIONAL: numerator and denominator pairs.
        case rationals([(numerator: Int, denominator: Int)])
        /// UNDEFINED (type 7) and anything else: the bytes as stored.
        case bytes([UInt8])
    }

    /// The Exif sub-directory pointer (camera settings), the GPS one and the interoperability one.
    package static let exifPointerTag: UInt16 = 0x8769
    package static let gpsPointerTag: UInt16 = 0x8825

    /// The directory an entry of `tag` points to (the Exif or GPS sub-directory); `nil` when there is none or it
    /// cannot be read. A pointer back to a directory already read is not followed by callers that keep to the
    /// two fixed sub-directories.
    package func subdirectory(_ tag: UInt16) -> EXIFDirectory? {
        guard let entry = entries.first(where: { $0.tag == tag && ($0.type == 4 || $0.type == 13) }),
              let start = Self.read32(bytes, entry.valueOffset, littleEndian)
        else { return nil }
        return EXIFDirectory(tiff: bytes, littleEndian: littleEndian, start: Int(start))
    }

    /// The value of `entry`; at most `limit` items of a numeric entry (a hostile count cannot make a huge array).
    package func value(of entry: Entry, limit: Int = 64) -> Value {
        let count = min(entry.count, limit)
        func integer(_ index: Int, size: Int, signed: Bool) -> Int {
            let offset = entry.valueOffset + index * size
            switch size {
            case 1: return signed ? Int(Int8(bitPattern: bytes[offset])) : Int(bytes[offset])
            case 2:
                let value = Self.read16(bytes, offset, littleEndian) ?? 0
                return signed ? Int(Int16(bitPattern: value)) : Int(value)
            default:
                let value = Self.read32(bytes, offset, littleEndian) ?? 0
                return signed ? Int(Int32(bitPattern: value)) : Int(value)
            }
        }
        switch entry.type {
        case 2:
            let text = bytes[entry.valueOffset..<entry.valueOffset + entry.count]
            return .text(String(decoding: text.prefix { $0 != 0 }, as: UTF8.self))
        case 1, 6: return .integers((0..<count).map { integer($0, size: 1, signed: entry.type == 6) })
        case 3, 8: return .integers((0..<count).map { integer($0, size: 2, signed: entry.type == 8) })
        case 4, 9: return .integers((0..<count).map { integer($0, size: 4, signed: entry.type == 9) })
        case 5, 10:
            return .rationals((0..<count).map {
                (integer(2 * $0, size: 4, signed: entry.type == 10), integer(2 * $0 + 1, size: 4, signed: entry.type == 10))
            })
        default:
            return .bytes(Array(bytes[entry.valueOffset..<entry.valueOffset + min(entry.count, 4_096)]))
        }
    }
}
