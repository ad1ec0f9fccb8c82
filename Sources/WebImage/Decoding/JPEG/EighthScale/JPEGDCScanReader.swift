/// The entropy-coded data of a progressive DC scan: each block's DC as a Huffman-coded difference from the
/// previous block's of the same component (a first scan), or one more bit of it (a refinement).
enum JPEGDCScanReader {
    /// Reads the scan of `members` into their DC planes; `false` when the data is damaged.
    static func read(_ members: [Int], tables: [JPEGHuffmanTable?], refining: Bool, al: Int,
                     frame: inout JPEGEighthScaleDecoder.Frame, restartInterval: Int,
                     reader: inout JPEGBitReader) -> Bool
    {
        let count = members.count
        // A first scan needs each member's table; a refinement reads plain bits.
        var decoders: [JPEGHuffmanTable] = []
        if !refining {
            for position in 0..<count {
                guard let table = tables[position] else { return false }
                decoders.append(table)
            }
        }
        // The planes are written through pointers of their own for the scan (an array of arrays would check
        // each inner array's uniqueness on every write), then handed back.
        let planes = members.map { member in
            let plane = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frame.components[member].dc.count)
            _ = plane.initialize(from: frame.components[member].dc)
            return plane
        }
        defer { for plane in planes { plane.deallocate() } }
        let geometry = members.map { member in
            let component = frame.components[member]
            return (h: component.h, v: component.v, stride: component.paddedWide, wide: component.blocksWide,
                    high: component.blocksHigh)
        }
        var predictors = [Int](repeating: 0, count: count)
        var restart = JPEGRestarts(interval: restartInterval)
        let refinementBit = Int16(truncatingIfNeeded: 1 << min(al, 15))
        // A lone component's scan walks its own grid one block a unit; an interleaved one walks MCUs of h×v
        // blocks of each member (rows and columns counted, not divided out of a unit number).
        let (unitsWide, unitsHigh) = count == 1
            ? (geometry[0].wide, geometry[0].high) : (frame.mcusWide, frame.mcusHigh)
        for unitY in 0..<unitsHigh {
            for unitX in 0..<unitsWide {
                guard restart.beforeUnit(&reader) else { return false }
                if restart.justRestarted { for index in predictors.indices { predictors[index] = 0 } }
                for position in 0..<count {
                    let shape = geometry[position]
                    let plane = planes[position]
                    let (originX, originY, wide, high) = count == 1
                        ? (unitX, unitY, 1, 1) : (unitX * shape.h, unitY * shape.v, shape.h, shape.v)
                    for y in originY..<(originY + high) {
                        for x in originX..<(originX + wide) {
                            let index = y * shape.stride + x
                            if refining {
                                if reader.bit() != 0 { plane[index] |= refinementBit }
                            } else {
                                guard let size = decoders[position].decode(&reader), size <= 11 else { return false }
                                predictors[position] &+= JPEGProgressiveScan.extend(reader.bits(Int(size)),
                                                                                    size: Int(size))
                                plane[index] = Int16(truncatingIfNeeded: predictors[position] << al)
                            }
                        }
                    }
                }
            }
        }
        for (position, member) in members.enumerated() { frame.components[member].dc = Array(planes[position]) }
        return true
    }
}

/// Restart markers (RST0…RST7, in turn) every `interval` MCUs of a scan, when the file has an interval.
struct JPEGRestarts {
    let interval: Int
    private var left: Int
    private var next = 0
    /// Whether the last ``beforeUnit(_:)`` crossed a restart marker (predictors and end-of-band runs reset).
    private(set) var justRestarted = false

    init(interval: Int) {
        self.interval = interval
        left = interval
    }

    /// Called before each MCU: moves past the restart marker due here; `false` when it is not there.
    mutating func beforeUnit(_ reader: inout JPEGBitReader) -> Bool {
        justRestarted = false
        guard interval > 0 else { return true }
        if left == 0 {
            guard reader.restart(expecting: next) else { return false }
            next = (next + 1) & 7
            left = interval
            justRestarted = true
        }
        left -= 1
        return true
    }
}
