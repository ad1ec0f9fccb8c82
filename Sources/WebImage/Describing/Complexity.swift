extension PixelBuffer {
    /// How much of the picture is not flat, from 0 to 10: a tenth of the percentage of neighbouring pixel pairs
    /// (each pixel with the one to its right and the one below) whose colours differ at all. A logo or an icon
    /// measures 0–1, a screenshot of text or a user interface about 3–6 (large flat grounds), a photo 8–10 (grain
    /// and gradients change every pixel). Flat areas are what lossless codecs compress to almost nothing and what
    /// lossy ones blur at their edges, so a proxy's `format:best` encodes below a threshold (5.5) losslessly.
    public var complexity: Double {
        let pairs = (width - 1) * height + width * (height - 1)
        guard pairs > 0 else { return 0 }
        let changes = withUnsafeBytes { bytes -> Int in
            func pixel(_ index: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self) }
            var changes = 0
            for y in 0..<height {
                let row = y * width
                for x in 0..<width {
                    let colour = pixel(row + x)
                    if x + 1 < width, pixel(row + x + 1) != colour { changes += 1 }
                    if y + 1 < height, pixel(row + width + x) != colour { changes += 1 }
                }
            }
            return changes
        }
        return 10 * Double(changes) / Double(pairs)
    }
}
