/// Builds a palette for an image with too many colours by median cut (Heckbert, 1982), refined by a few rounds of
/// k-means.
///
/// The opaque pixels are counted in a histogram of 5 bits per channel (32 768 cells, each remembering the exact
/// sum of the colours that fell in it). The box of cells with the most pixels times the widest colour range is
/// split at the pixel median of its widest channel until there are enough boxes; each palette colour is the mean
/// of the pixels in its box. Two k-means rounds over the cells then move each colour to the mean of the cells
/// nearest to it, which lowers the error median cut leaves on skewed distributions.
enum GIFMedianCut {
    private struct Cell {
        var count = 0
        var red = 0, green = 0, blue = 0

        var mean: (Int, Int, Int) { (red / count, green / count, blue / count) }
    }

    private struct Box {
        var cells: Range<Int>
        var pixelCount: Int
        var widestChannel: Int
        var widestRange: Int

        var score: Int { widestRange > 0 ? pixelCount * widestRange : 0 }
    }

    /// At most `maxColors` colours for the opaque pixels of `region` (at least one colour).
    static func palette(for region: GIFPixelRegion, maxColors: Int) -> [GIFIndexedImage.Color] {
        var histogram = [Cell](repeating: Cell(), count: 1 << 15)
        for y in 0..<region.rect.height {
            let row = region.row(y)
            var offset = 0
            while offset < row.count {
                if row[offset + 3] >= GIFIndexedImage.alphaThreshold {
                    let r = Int(row[offset]), g = Int(row[offset + 1]), b = Int(row[offset + 2])
                    let key = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
                    histogram[key].count += 1
                    histogram[key].red += r
                    histogram[key].green += g
                    histogram[key].blue += b
                }
                offset += 4
            }
        }
        var cells = histogram.filter { $0.count > 0 }
        guard !cells.isEmpty else { return [GIFIndexedImage.Color(r: 0, g: 0, b: 0)] }

        var boxes = [makeBox(cells.indices, cells: cells)]
        while boxes.count < maxColors {
            guard let chosen = boxes.indices.max(by: { boxes[$0].score < boxes[$1].score }),
                  boxes[chosen].score > 0 else { break }
            let (low, high) = split(boxes[chosen], cells: &cells)
            boxes[chosen] = low
            boxes.append(high)
        }
        var palette = boxes.map { box -> (Int, Int, Int) in
            var sum = Cell()
            for cell in cells[box.cells] {
                sum.count += cell.count; sum.red += cell.red; sum.green += cell.green; sum.blue += cell.blue
            }
            return sum.mean
        }
        for _ in 0..<2 { palette = refine(palette, cells: cells) }
        return palette.map { GIFIndexedImage.Color(r: UInt8($0.0), g: UInt8($0.1), b: UInt8($0.2)) }
    }

    private static func channel(_ cell: Cell, _ channel: Int) -> Int {
        let mean = cell.mean
        return channel == 0 ? mean.0 : channel == 1 ? mean.1 : mean.2
    }

    private static func makeBox(_ cellRange: Range<Int>, cells: [Cell]) -> Box {
        var low = [255, 255, 255], high = [0, 0, 0], count = 0
        for cell in cells[cellRange] {
            count += cell.count
            let mean = cell.mean
            for (channel, value) in [mean.0, mean.1, mean.2].enumerated() {
                low[channel] = min(low[channel], value)
                high[channel] = max(high[channel], value)
            }
        }
        // Green counts a little more than red, and red more than blue, as the eye does.
        let weighted = [(high[0] - low[0]) * 3, (high[1] - low[1]) * 4, (high[2] - low[2]) * 2]
        let widest = weighted.indices.max { weighted[$0] < weighted[$1] } ?? 0
        let spread = cellRange.count > 1 ? weighted[widest] : 0
        return Box(cells: cellRange, pixelCount: count, widestChannel: widest, widestRange: spread)
    }

    /// Splits `box` at the pixel median of its widest channel; both halves keep at least one cell.
    private static func split(_ box: Box, cells: inout [Cell]) -> (Box, Box) {
        sortByMean(&cells, box.cells, channel: box.widestChannel)
        let half = box.pixelCount / 2
        var running = 0
        var cut = box.cells.lowerBound + 1
        for index in box.cells {
            running += cells[index].count
            if running >= half {
                cut = index + 1
                break
            }
        }
        cut = min(max(cut, box.cells.lowerBound + 1), box.cells.upperBound - 1)
        return (makeBox(box.cells.lowerBound..<cut, cells: cells), makeBox(cut..<box.cells.upperBound, cells: cells))
    }

    /// Orders the cells of `range` by their mean in `channel`, equal means keeping their order: a counting sort
    /// over the 256 values a mean can take, so each mean is divided out once, not at every comparison of a
    /// comparison sort (same order as a stable sort; the sorts were a tenth of a GIF thumbnail's time).
    private static func sortByMean(_ cells: inout [Cell], _ range: Range<Int>, channel: Int) {
        let unsorted = Array(cells[range])
        var keys = [UInt8](repeating: 0, count: unsorted.count)
        // starts[v + 1] counts the cells whose mean is v; then starts[v] is where the first of them goes.
        var starts = [Int](repeating: 0, count: 257)
        for (index, cell) in unsorted.enumerated() {
            let key = self.channel(cell, channel)
            keys[index] = UInt8(key)
            starts[key + 1] += 1
        }
        for value in 1...256 { starts[value] += starts[value - 1] }
        for (index, cell) in unsorted.enumerated() {
            let key = Int(keys[index])
            cells[range.lowerBound + starts[key]] = cell
            starts[key] += 1
        }
    }

    /// One k-means round: every cell goes to its nearest colour; each colour moves to the mean of its cells.
    private static func refine(_ palette: [(Int, Int, Int)], cells: [Cell]) -> [(Int, Int, Int)] {
        let search = GIFNearestColor(palette.map { (r: $0.0, g: $0.1, b: $0.2) }, weights: (1, 1, 1))
        var sums = [Cell](repeating: Cell(), count: palette.count)
        for cell in cells {
            let (r, g, b) = cell.mean
            let best = search.nearest(r, g, b)
            sums[best].count += cell.count
            sums[best].red += cell.red
            sums[best].green += cell.green
            sums[best].blue += cell.blue
        }
        return palette.indices.map { sums[$0].count > 0 ? sums[$0].mean : palette[$0] }
    }
}
