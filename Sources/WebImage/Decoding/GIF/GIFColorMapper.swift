/// Maps RGBA pixels to the nearest colour of a palette, optionally with Floyd–Steinberg error diffusion.
///
/// Nearest-colour searches (``GIFCellNearestColor``, weighted like the eye: green most, blue least) are
/// remembered per cell of 6 bits per channel (262 144 cells), so an image costs one search per distinct cell rather
/// than one per pixel; a cell is searched from its centre.
struct GIFColorMapper {
    private let palette: [GIFIndexedImage.Color]
    private var search: GIFCellNearestColor
    /// The palette index for each 6-bit cell, or -1 when not searched yet.
    private var nearestInCell: [Int16]

    init(palette: [GIFIndexedImage.Color]) {
        self.palette = palette
        search = GIFCellNearestColor(palette.map { (Int($0.r), Int($0.g), Int($0.b)) }, weights: (3, 4, 2))
        nearestInCell = [Int16](repeating: -1, count: 1 << 18)
    }

    /// Writes the nearest palette index of each pixel of `region` to `indices` (transparent pixels get
    /// `transparentIndex`).
    mutating func map(_ region: GIFPixelRegion, transparentIndex: Int, into indices: inout [UInt8]) {
        var output = 0
        for y in 0..<region.rect.height {
            let row = region.row(y)
            for x in 0..<region.rect.width {
                let offset = x * 4
                indices[output] = row[offset + 3] < GIFIndexedImage.alphaThreshold
                    ? UInt8(transparentIndex)
                    : UInt8(nearest(Int(row[offset]), Int(row[offset + 1]), Int(row[offset + 2])))
                output += 1
            }
        }
    }

    /// Like ``map(_:transparentIndex:into:)``, but each pixel's error (wanted colour minus palette colour) is
    /// passed on to its unvisited neighbours: 7/16 right, 3/16 below left, 5/16 below, 1/16 below right.
    /// Transparent pixels neither take nor pass on error.
    mutating func mapWithDithering(_ region: GIFPixelRegion, transparentIndex: Int, into indices: inout [UInt8]) {
        let width = region.rect.width
        // Errors in sixteenths, three channels per pixel, with one spare pixel at each end of the row.
        var current = [Int](repeating: 0, count: (width + 2) * 3)
        var next = current
        var output = 0
        for y in 0..<region.rect.height {
            let row = region.row(y)
            for index in next.indices { next[index] = 0 }
            for x in 0..<width {
                let offset = x * 4
                guard row[offset + 3] >= GIFIndexedImage.alphaThreshold else {
                    indices[output] = UInt8(transparentIndex)
                    output += 1
                    continue
                }
                let slot = (x + 1) * 3
                let r = Self.clamp(Int(row[offset]) + (current[slot] + 8) >> 4)
                let g = Self.clamp(Int(row[offset + 1]) + (current[slot + 1] + 8) >> 4)
                let b = Self.clamp(Int(row[offset + 2]) + (current[slot + 2] + 8) >> 4)
                let index = nearest(r, g, b)
                indices[output] = UInt8(index)
                output += 1
                let chosen = palette[index]
                spread(r - Int(chosen.r), at: slot, current: &current, next: &next)
                spread(g - Int(chosen.g), at: slot + 1, current: &current, next: &next)
                spread(b - Int(chosen.b), at: slot + 2, current: &current, next: &next)
            }
            swap(&current, &next)
        }
    }

    private static func clamp(_ value: Int) -> Int { min(max(value, 0), 255) }

    /// Passes one channel's error on to the pixel at the right and the three below.
    private func spread(_ error: Int, at slot: Int, current: inout [Int], next: inout [Int]) {
        current[slot + 3] += error * 7
        next[slot - 3] += error * 3
        next[slot] += error * 5
        next[slot + 3] += error
    }

    /// The palette index closest to (`r`, `g`, `b`), by the cell the colour falls in.
    private mutating func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let cell = (r >> 2) << 12 | (g >> 2) << 6 | b >> 2
        let known = nearestInCell[cell]
        if known >= 0 { return Int(known) }
        let found = search.nearest(cellRed: r >> 2, green: g >> 2, blue: b >> 2)
        nearestInCell[cell] = Int16(found)
        return found
    }
}
