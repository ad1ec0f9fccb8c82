/// The palette colour nearest to the centre of a 6-bit colour cell, under a squared distance with a weight per
/// channel; of equally near colours, the lowest index — what comparing with every colour finds, found by comparing
/// with the few colours that can win anywhere near the cell.
///
/// The reasoning is libjpeg's inverse colour map: for a box of cells, a colour whose nearest possible distance to
/// the box's cell centres is more than the smallest farthest distance some colour has to all of them is farther
/// from every centre than that colour is, so it cannot win in the box, not even a tie. Boxes of 8 × 8 × 8 cells
/// keep the colours that can win in them (about 40 of 256 for a photo's palette); boxes of 4 × 4 × 4 cells keep
/// those of their big box's that can win in them (about 10), and a cell compares with its small box's colours.
/// Both are built the first time a cell in them is asked for. The colour mapper dithers: a 200 × 150 frame
/// searched about 21 000 distinct cells in some 320 big and 1 700 small boxes, and the walk over the palette that
/// ``GIFNearestColor`` makes per search was a fifth of a GIF thumbnail's time. A palette that changes every round
/// (median cut's k-means) keeps ``GIFNearestColor``: boxes would not pay back.
struct GIFCellNearestColor {
    private struct Entry {
        var r: Int32, g: Int32, b: Int32, index: Int32
    }

    /// A level of boxes: how many cells a side, as a shift, and each box's candidates.
    private struct Boxes {
        let shift: Int
        /// For each box, where its candidates start in ``candidates`` (-1 until built) and how many there are.
        var start: [Int32]
        var count: [Int32]
        /// The candidates of every box built so far, each box's in index order (so the first of equals wins).
        var candidates: [Entry] = []

        init(shift: Int) {
            self.shift = shift
            let perSide = 64 >> shift
            start = [Int32](repeating: -1, count: perSide * perSide * perSide)
            count = [Int32](repeating: 0, count: perSide * perSide * perSide)
        }

        /// The box holding cell (`r`, `g`, `b`).
        func box(_ r: Int, _ g: Int, _ b: Int) -> Int {
            let bits = 6 - shift
            return (r >> shift) << (2 * bits) | (g >> shift) << bits | b >> shift
        }
    }

    private let colors: [Entry]
    private let weights: (r: Int32, g: Int32, b: Int32)
    private var big = Boxes(shift: 3)
    private var small = Boxes(shift: 2)
    /// Each colour's nearest possible distance to the box being built, kept to avoid an allocation per box.
    private var nearestPossible: [Int32]

    /// Prepares searches among `colors` (channels 0–255) weighing squared channel differences by `weights`.
    init(_ colors: [(r: Int, g: Int, b: Int)], weights: (r: Int32, g: Int32, b: Int32)) {
        self.colors = colors.enumerated().map {
            Entry(r: Int32($1.r), g: Int32($1.g), b: Int32($1.b), index: Int32($0))
        }
        self.weights = weights
        nearestPossible = [Int32](repeating: 0, count: colors.count)
    }

    /// The index of the colour nearest to the centre of cell (`r`, `g`, `b`), each 0–63 (a channel's top six
    /// bits); 0 when there are no colours.
    mutating func nearest(cellRed r: Int, green g: Int, blue b: Int) -> Int {
        let box = small.box(r, g, b)
        if small.start[box] < 0 { buildSmallBox(box, r, g, b) }
        let start = Int(small.start[box]), end = start + Int(small.count[box])
        let r = Int32(r << 2 | 2), g = Int32(g << 2 | 2), b = Int32(b << 2 | 2)
        let (redWeight, greenWeight, blueWeight) = weights
        var best: Int32 = 0, bestDistance = Int32.max
        small.candidates.withUnsafeBufferPointer { candidates in
            for position in start..<end {
                let entry = candidates[position]
                // Wrapping arithmetic: channels are 0–255 and weights small, so nothing overflows 32 bits.
                let dr = entry.r &- r, dg = entry.g &- g, db = entry.b &- b
                let distance = redWeight &* dr &* dr &+ greenWeight &* dg &* dg &+ blueWeight &* db &* db
                if distance < bestDistance { (best, bestDistance) = (entry.index, distance) }
            }
        }
        return Int(best)
    }

    /// Builds the small box holding cell (`r`, `g`, `b`) from its big box's candidates, building that first.
    private mutating func buildSmallBox(_ box: Int, _ r: Int, _ g: Int, _ b: Int) {
        let bigBox = big.box(r, g, b)
        if big.start[bigBox] < 0 {
            colors.withUnsafeBufferPointer { colors in
                Self.keepCandidates(of: colors, forBox: bigBox, at: (r, g, b), weights: weights,
                                    scratch: &nearestPossible, in: &big)
            }
        }
        let start = Int(big.start[bigBox]), end = start + Int(big.count[bigBox])
        big.candidates.withUnsafeBufferPointer { candidates in
            Self.keepCandidates(of: UnsafeBufferPointer(rebasing: candidates[start..<end]), forBox: box,
                                at: (r, g, b), weights: weights, scratch: &nearestPossible, in: &small)
        }
    }

    /// Appends to `boxes` those of `entries` that can be nearest to some cell centre of the box holding `cell`;
    /// `scratch` holds at least as many values as `entries`.
    private static func keepCandidates(
        of entries: UnsafeBufferPointer<Entry>, forBox box: Int, at cell: (r: Int, g: Int, b: Int),
        weights: (r: Int32, g: Int32, b: Int32), scratch: inout [Int32], in boxes: inout Boxes
    ) {
        let (redWeight, greenWeight, blueWeight) = weights
        /// The lowest and highest centre value of the box's cells in a channel.
        func centres(_ cellCoordinate: Int) -> (low: Int32, high: Int32) {
            let low = Int32((cellCoordinate >> boxes.shift) << (boxes.shift + 2) | 2)
            return (low, low + Int32(((1 << boxes.shift) - 1) << 2))
        }
        let (red, green, blue) = (centres(cell.r), centres(cell.g), centres(cell.b))
        /// The nearest and farthest a channel value can be from the range's values.
        func reach(_ value: Int32, _ range: (low: Int32, high: Int32)) -> (near: Int32, far: Int32) {
            let below = range.low &- value, above = value &- range.high
            let near = below > 0 ? below : (above > 0 ? above : 0)
            return (near, max(value &- range.low, range.high &- value))
        }
        var smallestFarthest = Int32.max
        scratch.withUnsafeMutableBufferPointer { nearestPossible in
            for (position, entry) in entries.enumerated() {
                let dr = reach(entry.r, red), dg = reach(entry.g, green), db = reach(entry.b, blue)
                nearestPossible[position] = redWeight &* dr.near &* dr.near &+ greenWeight &* dg.near &* dg.near
                    &+ blueWeight &* db.near &* db.near
                let farthest = redWeight &* dr.far &* dr.far &+ greenWeight &* dg.far &* dg.far
                    &+ blueWeight &* db.far &* db.far
                smallestFarthest = min(smallestFarthest, farthest)
            }
        }
        // Every entry is written and the next one overwrites it unless it is kept: no branch to mispredict.
        let start = boxes.candidates.count
        boxes.candidates.append(contentsOf: entries)
        var kept = start
        boxes.candidates.withUnsafeMutableBufferPointer { candidates in
            scratch.withUnsafeBufferPointer { nearestPossible in
                for position in entries.indices {
                    candidates[kept] = entries[position]
                    kept &+= nearestPossible[position] <= smallestFarthest ? 1 : 0
                }
            }
        }
        boxes.candidates.removeLast(start + entries.count - kept)
        boxes.start[box] = Int32(start)
        boxes.count[box] = Int32(kept - start)
    }
}
