/// The entropy-coded data of a progressive DC scan: each block's DC as a Huffman-coded difference from the
/// previous block's of the same component (a first scan), or one more bit of it (a refinement).
///
/// Every block of the image passes through here once per DC scan (a 12 MP 4:2:0 file has 281 000), so the loop
/// is laid out ahead of it: all members' planes in one buffer, each block of a unit (an MCU, or one block of a
/// lone component) as its member and its offset from the unit's corner, and the members' 9-bit Huffman lookups
/// side by side. The loop then only adds offsets: no array of arrays, class reference or overflow check on its
/// common path (a Huffman code longer than 9 bits goes through its table object).
enum JPEGDCScanReader {
    /// Reads the scan of `members` into their DC planes; `false` when the data is damaged.
    static func read(_ members: [Int], tables: [JPEGHuffmanTable?], refining: Bool, al: Int,
                     frame: inout JPEGEighthScaleDecoder.Frame, restartInterval: Int,
                     reader: inout JPEGBitReader) -> Bool
    {
        let count = members.count
        // A first scan needs each member's table; a refinement reads plain bits.
        var decoders: [JPEGHuffmanTable] = []
        var lookups: [UInt16] = []
        if !refining {
            for position in 0..<count {
                guard let table = tables[position] else { return false }
                decoders.append(table)
                lookups += table.lookup
            }
        }
        let layout = Layout(members, frame: frame)
        let planes = UnsafeMutableBufferPointer<Int16>.allocate(capacity: layout.total)
        defer { planes.deallocate() }
        for (position, member) in members.enumerated() {
            _ = UnsafeMutableBufferPointer(rebasing: planes[layout.starts[position]...])
                .initialize(from: frame.components[member].dc)
        }
        let read = lookups.withUnsafeBufferPointer { lookups in
            layout.read(into: planes.baseAddress!, lookups: lookups.baseAddress, decoders: decoders,
                        refining: refining, al: al, restartInterval: restartInterval, reader: &reader)
        }
        guard read else { return false }
        for (position, member) in members.enumerated() {
            let start = layout.starts[position]
            frame.components[member].dc = Array(planes[start..<(start + frame.components[member].dc.count)])
        }
        return true
    }

    /// Where each block of a scan's units lies in the members' planes, which sit one after another in one buffer.
    private struct Layout {
        /// Each member's plane's first index in the buffer.
        let starts: [Int]
        let total: Int
        /// For each member, how far its unit's corner moves per unit across and per row of units.
        let across: [Int]
        let down: [Int]
        /// For each block of a unit in scan order: its member (position in the scan) and offset from the corner.
        let blockMembers: [Int]
        let blockOffsets: [Int]
        let unitsWide: Int
        let unitsHigh: Int

        init(_ members: [Int], frame: JPEGEighthScaleDecoder.Frame) {
            var starts: [Int] = [], total = 0
            for member in members {
                starts.append(total)
                total += frame.components[member].dc.count
            }
            self.starts = starts
            self.total = total
            var across: [Int] = [], down: [Int] = [], blockMembers: [Int] = [], blockOffsets: [Int] = []
            // A lone component's scan walks its own grid one block a unit; an interleaved one walks MCUs of h×v
            // blocks of each member.
            for (position, member) in members.enumerated() {
                let component = frame.components[member]
                let (wide, high) = members.count == 1 ? (1, 1) : (component.h, component.v)
                across.append(wide)
                down.append(high * component.paddedWide)
                for y in 0..<high {
                    for x in 0..<wide {
                        blockMembers.append(position)
                        blockOffsets.append(y * component.paddedWide + x)
                    }
                }
            }
            self.across = across
            self.down = down
            self.blockMembers = blockMembers
            self.blockOffsets = blockOffsets
            if members.count == 1 {
                let component = frame.components[members[0]]
                (unitsWide, unitsHigh) = (component.blocksWide, component.blocksHigh)
            } else {
                (unitsWide, unitsHigh) = (frame.mcusWide, frame.mcusHigh)
            }
        }

        /// Reads every unit into `planes`; `lookups` holds each member's 9-bit lookup in turn (a first scan).
        func read(into planes: UnsafeMutablePointer<Int16>, lookups: UnsafePointer<UInt16>?,
                  decoders: [JPEGHuffmanTable], refining: Bool, al: Int, restartInterval: Int,
                  reader: inout JPEGBitReader) -> Bool
        {
            let count = starts.count, blocks = blockMembers.count
            let lookupBits = JPEGHuffmanTable.lookupBits, lookupSize = 1 << lookupBits
            var restart = JPEGRestarts(interval: restartInterval)
            let refinementBit = Int16(truncatingIfNeeded: 1 << min(al, 15))
            // Small per-member state, on the heap once for the scan rather than in arrays checked on each access.
            let corners = UnsafeMutablePointer<Int>.allocate(capacity: count)
            let predictors = UnsafeMutablePointer<Int>.allocate(capacity: count)
            defer {
                corners.deallocate()
                predictors.deallocate()
            }
            predictors.initialize(repeating: 0, count: count)
            return blockMembers.withUnsafeBufferPointer { blockMembers in
                blockOffsets.withUnsafeBufferPointer { blockOffsets in
                    for unitY in 0..<unitsHigh {
                        for position in 0..<count { corners[position] = starts[position] &+ unitY &* down[position] }
                        for _ in 0..<unitsWide {
                            guard restart.beforeUnit(&reader) else { return false }
                            if restart.justRestarted { predictors.update(repeating: 0, count: count) }
                            for block in 0..<blocks {
                                let position = blockMembers[block]
                                let index = corners[position] &+ blockOffsets[block]
                                if refining {
                                    if reader.bit() != 0 { planes[index] |= refinementBit }
                                    continue
                                }
                                let size: Int
                                let entry = lookups.unsafelyUnwrapped[position &* lookupSize &+ reader.peek(lookupBits)]
                                if entry & 0xFF != 0 {
                                    reader.skip(Int(entry & 0xFF))
                                    size = Int(entry >> 8)
                                } else {
                                    // A code longer than the lookup: rare for DC.
                                    guard let symbol = decoders[position].decode(&reader) else { return false }
                                    size = Int(symbol)
                                }
                                guard size <= 11 else { return false }
                                predictors[position] &+= JPEGProgressiveScan.extend(reader.bits(size), size: size)
                                planes[index] = Int16(truncatingIfNeeded: predictors[position] << al)
                            }
                            for position in 0..<count { corners[position] &+= across[position] }
                        }
                    }
                    return true
                }
            }
        }
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
