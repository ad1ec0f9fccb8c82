extension PixelBuffer {
    /// At most `maxColors` colours (2 to 256) that represent the pixels, the most used first: the exact colours
    /// when the opaque pixels use that few, otherwise the GIF encoder's median-cut palette (each colour the mean of
    /// the pixels it stands for), with the colours no pixel is nearest to left out. Pixels under half opacity count
    /// as one transparent entry (`RGBA(0, 0, 0, 0)`), which takes one of the places. Throws
    /// `ImageError.Code.invalidParameter` for a count outside 2...256.
    public func palette(maxColors: Int) throws -> [RGBA] {
        try paletteWithPopulations(maxColors: maxColors).map(\.colour)
    }

    /// ``palette(maxColors:)`` with the number of pixels each colour stands for.
    func paletteWithPopulations(maxColors: Int) throws -> [(colour: RGBA, population: Int)] {
        guard (2...256).contains(maxColors) else {
            throw ImageError(.invalidParameter, "a palette has 2 to 256 colours, not \(maxColors)")
        }
        return withUnsafeBytes { bytes in
            let region = GIFPixelRegion(bytes: bytes, imageWidth: width,
                                        rect: PixelRect(x: 0, y: 0, width: width, height: height))
            var counts: [RGBA: Int] = [:]
            var transparent = 0
            var offset = 0
            while offset < bytes.count, counts.count <= maxColors {
                if bytes[offset + 3] < GIFIndexedImage.alphaThreshold {
                    transparent += 1
                } else {
                    counts[RGBA(bytes[offset], bytes[offset + 1], bytes[offset + 2]), default: 0] += 1
                }
                offset += 4
            }
            let places = maxColors - (region.containsTransparency ? 1 : 0)
            if offset < bytes.count || counts.count > places {
                // Too many colours: median cut, then how many pixels each of its colours stands for.
                let colours = GIFMedianCut.palette(for: region, maxColors: places)
                var mapper = GIFColorMapper(palette: colours)
                var indices = [UInt8](repeating: 0, count: width * height)
                mapper.map(region, transparentIndex: colours.count, into: &indices)
                counts = [:]
                transparent = 0
                for (pixel, index) in indices.enumerated() {
                    if bytes[pixel * 4 + 3] < GIFIndexedImage.alphaThreshold {
                        transparent += 1
                    } else {
                        let colour = colours[Int(index)]
                        counts[RGBA(colour.r, colour.g, colour.b), default: 0] += 1
                    }
                }
            }
            if transparent > 0 { counts[RGBA(0, 0, 0, 0)] = transparent }
            return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.packed < $1.key.packed }
                .map { (colour: $0.key, population: $0.value) }
        }
    }
}
