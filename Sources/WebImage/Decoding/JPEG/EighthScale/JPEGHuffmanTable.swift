/// One Huffman table from a DHT segment, as a canonical code (ITU T.81, annex C): codes of each length are
/// consecutive integers, and a code of length `n + 1` starts where the codes of length `n` end, doubled.
///
/// Decoding looks the next 9 bits up in a table first (nearly every DC code is that short) and walks the lengths
/// only for longer codes.
final class JPEGHuffmanTable: Sendable {
    /// Bits looked up at once.
    static let lookupBits = 9

    /// For each 9-bit prefix of the input: the symbol in the high byte and the code's length in the low byte, or
    /// length 0 when the code is longer.
    let lookup: [UInt16]
    /// For lengths 1…16: the largest code of that length, or -1 when there is none.
    private let maximumCode: [Int]
    /// For lengths 1…16: the index in `symbols` of the first code of that length, minus that code.
    private let offset: [Int]
    private let symbols: [UInt8]

    /// Reads a table from its 16 counts (codes of each length 1…16) and its symbols; `nil` when the counts do not
    /// describe a code (more codes of a length than fit, or symbols missing).
    init?(counts: UnsafeRawBufferPointer, symbols: UnsafeRawBufferPointer) {
        guard counts.count == 16 else { return nil }
        let total = counts.reduce(0) { $0 + Int($1) }
        guard total > 0, total <= 256, symbols.count == total else { return nil }
        let symbols = Array(symbols)
        var lookup = [UInt16](repeating: 0, count: 1 << Self.lookupBits)
        var maximumCode = [Int](repeating: -1, count: 17)
        var offset = [Int](repeating: 0, count: 17)
        var code = 0
        var index = 0
        for length in 1...16 {
            let count = Int(counts[length - 1])
            offset[length] = index - code
            if count > 0 {
                guard code + count <= 1 << length else { return nil }
                for _ in 0..<count {
                    if length <= Self.lookupBits {
                        let shift = Self.lookupBits - length
                        for fill in (code << shift)..<((code + 1) << shift) {
                            lookup[fill] = UInt16(symbols[index]) << 8 | UInt16(length)
                        }
                    }
                    code += 1
                    index += 1
                }
                maximumCode[length] = code - 1
            }
            code <<= 1
        }
        self.lookup = lookup
        self.maximumCode = maximumCode
        self.offset = offset
        self.symbols = symbols
    }

    /// The next symbol from `reader`; `nil` when the bits are no code of this table (damaged data).
    func decode(_ reader: inout JPEGBitReader) -> UInt8? {
        let peek = reader.peek(Self.lookupBits)
        let entry = lookup[peek]
        if entry & 0xFF != 0 {
            reader.skip(Int(entry & 0xFF))
            return UInt8(entry >> 8)
        }
        var code = 0
        for length in 1...16 {
            code = code << 1 | reader.bit()
            if code <= maximumCode[length] {
                let index = code + offset[length]
                return symbols.indices.contains(index) ? symbols[index] : nil
            }
        }
        return nil
    }
}

/// Reads the bits of a scan's entropy-coded data, most significant first, undoing byte stuffing (0xFF 0x00 is a
/// data byte 0xFF). At a marker it stops and reads zeros from there on, as libjpeg does, and says so, so that a
/// caller can tell a scan that ran out of data from one that ended where it should.
struct JPEGBitReader {
    private let bytes: UnsafeRawBufferPointer
    /// The next byte to take into `buffer`.
    private(set) var position: Int
    private var buffer: UInt64 = 0
    private var count = 0
    /// How many of the `count` bits, the last ones, are zeros put in after the marker.
    private var padding = 0
    /// Whether more bits were asked for than the data held before its marker.
    private(set) var ranPastMarker = false
    /// The offset of the marker that ends the data (its 0xFF), once reached.
    private(set) var markerPosition: Int?

    init(_ bytes: UnsafeRawBufferPointer, from position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// The next `n` (≤ 16) bits without taking them.
    mutating func peek(_ n: Int) -> Int {
        if count < n { refill() }
        return Int(truncatingIfNeeded: buffer >> UInt64(64 - n))
    }

    /// Takes `n` bits that ``peek(_:)`` showed.
    mutating func skip(_ n: Int) {
        buffer <<= UInt64(n)
        count -= n
        if count < padding {
            ranPastMarker = true
            padding = count
        }
    }

    mutating func bit() -> Int {
        let value = peek(1)
        skip(1)
        return value
    }

    /// The next `n` (0…16) bits as an unsigned number.
    mutating func bits(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let value = peek(n)
        skip(n)
        return value
    }

    /// Drops the bits left in the current byte and moves past a restart marker `RSTn` (0xFF 0xD0 + n); `false`
    /// when the next marker is not that one.
    mutating func restart(expecting n: Int) -> Bool {
        buffer = 0
        count = 0
        padding = 0
        let marker = markerPosition ?? findMarker(skippingRestarts: false)
        guard let marker, marker + 1 < bytes.count, bytes[marker + 1] == 0xD0 + UInt8(n) else { return false }
        position = marker + 2
        markerPosition = nil
        return true
    }

    /// The offset of the marker after this scan's data (restart markers aside), reading on from where decoding
    /// stopped; `nil` when the data ends first.
    mutating func endOfData() -> Int? {
        markerPosition ?? findMarker(skippingRestarts: true)
    }

    /// Scans forward from `position` to the next marker that is not a stuffed zero, a fill byte or, when
    /// `skippingRestarts`, a restart marker.
    private mutating func findMarker(skippingRestarts: Bool) -> Int? {
        var index = position
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF {
                switch bytes[index + 1] {
                case 0x00: index += 2
                case 0xFF: index += 1
                case 0xD0...0xD7 where skippingRestarts: index += 2
                default:
                    markerPosition = index
                    return index
                }
            } else {
                index += 1
            }
        }
        return nil
    }

    private mutating func refill() {
        while count <= 56 {
            var byte: UInt8 = 0
            var isPadding = true
            if markerPosition == nil, position < bytes.count {
                let next = bytes[position]
                if next != 0xFF {
                    byte = next
                    isPadding = false
                    position += 1
                } else if position + 1 < bytes.count, bytes[position + 1] == 0x00 {
                    byte = 0xFF
                    isPadding = false
                    position += 2
                } else {
                    markerPosition = position
                }
            }
            if isPadding { padding += 8 }
            buffer |= UInt64(byte) << UInt64(56 - count)
            count += 8
        }
    }
}
