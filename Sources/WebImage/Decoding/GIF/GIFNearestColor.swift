/// The palette colour nearest to a colour, under a squared distance with a weight per channel; of equally near
/// colours, the lowest index — the same answer as comparing with every colour, found by visiting few of them.
///
/// The colours are kept sorted by green. A search starts at the colours as green as the one asked for and walks
/// outwards both ways at once; a direction ends where the green difference alone costs more than the best match
/// so far, since every colour further on differs more in green. For a 256-colour palette of a photo that is a few
/// dozen colours instead of 256. Median cut's k-means rounds search once per histogram cell, each round with a
/// new palette; the colour mapper, whose palette stays, uses ``GIFCellNearestColor`` instead.
struct GIFNearestColor {
    private struct Entry {
        var r: Int32, g: Int32, b: Int32, index: Int32
    }

    /// The colours sorted by green, ties by index.
    private let byGreen: [Entry]
    /// For each green value, the first position in ``byGreen`` whose green is at least that value.
    private let firstWithGreen: [Int32]
    private let redWeight: Int32, greenWeight: Int32, blueWeight: Int32

    /// Prepares searches among `colors` (channels 0–255) weighing squared channel differences by `weights`.
    init(_ colors: [(r: Int, g: Int, b: Int)], weights: (r: Int32, g: Int32, b: Int32)) {
        let sorted = colors.enumerated()
            .map { Entry(r: Int32($1.r), g: Int32($1.g), b: Int32($1.b), index: Int32($0)) }
            .sorted { ($0.g, $0.index) < ($1.g, $1.index) }
        var firstWithGreen = [Int32](repeating: Int32(sorted.count), count: 256)
        var position = sorted.count
        for green in stride(from: 255, through: 0, by: -1) {
            while position > 0 && sorted[position - 1].g >= green { position -= 1 }
            firstWithGreen[green] = Int32(position)
        }
        byGreen = sorted
        self.firstWithGreen = firstWithGreen
        (redWeight, greenWeight, blueWeight) = weights
    }

    /// The index of the colour nearest to (`r`, `g`, `b`), each 0–255; 0 when there are no colours.
    func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let r = Int32(r), g = Int32(g), b = Int32(b)
        var best: Int32 = 0, bestDistance = Int32.max
        byGreen.withUnsafeBufferPointer { colors in
            /// Weighs `entry` in; `false` once its green alone is too far for it or anything beyond it to win
            /// (equal is not too far: it may still win on index).
            func consider(_ entry: Entry) -> Bool {
                // Wrapping arithmetic: channels are 0–255 and weights small, so nothing overflows 32 bits, and
                // the overflow checks were a fifth of the search's instructions.
                let dg = entry.g &- g
                let greenCost = greenWeight &* dg &* dg
                guard greenCost <= bestDistance else { return false }
                let dr = entry.r &- r, db = entry.b &- b
                let distance = redWeight &* dr &* dr &+ greenCost &+ blueWeight &* db &* db
                if distance < bestDistance || (distance == bestDistance && entry.index < best) {
                    (best, bestDistance) = (entry.index, distance)
                }
                return true
            }
            var up = Int(firstWithGreen[Int(min(max(g, 0), 255))]), down = up - 1
            while up < colors.count || down >= 0 {
                if up < colors.count { up = consider(colors[up]) ? up + 1 : colors.count }
                if down >= 0 { down = consider(colors[down]) ? down - 1 : -1 }
            }
        }
        return Int(best)
    }
}
