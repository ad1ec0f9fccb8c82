import Testing
@testable import WebImage

/// The GIF encoder's nearest-colour searches must choose what comparing with every colour chooses, including the
/// lowest index among equally near colours: ``GIFNearestColor`` (a walk over a palette sorted by green, for median
/// cut's k-means rounds, equal weights) and ``GIFCellNearestColor`` (candidate lists per box of cells, for the colour
/// mapper, the eye's weights), also through the mapper's cache of cells.
@Suite struct GIFNearestColorTests {
    /// What the search must find: every colour compared, the first of equals.
    private static func exhaustiveNearest(_ r: Int, _ g: Int, _ b: Int, in palette: [GIFIndexedImage.Color],
                                          weights: (Int, Int, Int) = (3, 4, 2)) -> Int {
        var best = 0, bestDistance = Int.max
        for (index, color) in palette.enumerated() {
            let dr = r - Int(color.r), dg = g - Int(color.g), db = b - Int(color.b)
            let distance = weights.0 * dr * dr + weights.1 * dg * dg + weights.2 * db * db
            if distance < bestDistance { (best, bestDistance) = (index, distance) }
        }
        return best
    }

    @Test("any colour, either weighting, finds what an exhaustive search finds", arguments: palettes.indices)
    func searchIsExhaustive(_ which: Int) {
        Self.expectExhaustive(which, seed: 99) { search, r, g, b in search.nearest(r, g, b) }
    }

    @Test("any cell, either weighting, in any order, finds what an exhaustive search of its centre finds",
          arguments: palettes.indices)
    func cellSearchIsExhaustive(_ which: Int) {
        let palette = Self.palettes[which].colors
        var random = Generator(state: UInt64(which) + 31)
        for weights in [(3, 4, 2), (1, 1, 1)] {
            var search = GIFCellNearestColor(palette.map { (Int($0.r), Int($0.g), Int($0.b)) },
                                             weights: (Int32(weights.0), Int32(weights.1), Int32(weights.2)))
            // Random cells (boxes built in whatever order they come), then the corners and edges of the cube.
            var cells = (0..<6_000).map { _ in
                (Int.random(in: 0...63, using: &random), Int.random(in: 0...63, using: &random),
                 Int.random(in: 0...63, using: &random))
            }
            for r in [0, 7, 8, 63] { for g in [0, 31, 32, 63] { for b in [0, 3, 4, 63] { cells.append((r, g, b)) } } }
            var mismatches = 0
            for (r, g, b) in cells {
                let expected = Self.exhaustiveNearest(r << 2 | 2, g << 2 | 2, b << 2 | 2, in: palette,
                                                      weights: weights)
                if search.nearest(cellRed: r, green: g, blue: b) != expected { mismatches += 1 }
            }
            #expect(mismatches == 0, "\(Self.palettes[which].name), weights \(weights)")
        }
    }

    /// For 4 000 random colours under each weighting, expects the answer `answer` gives for a colour (from a
    /// search among palette `which`) to be what an exhaustive search finds.
    private static func expectExhaustive(
        _ which: Int, seed: UInt64, _ answer: (GIFNearestColor, Int, Int, Int) -> Int
    ) {
        let palette = palettes[which].colors
        var random = Generator(state: UInt64(which) + seed)
        for weights in [(3, 4, 2), (1, 1, 1)] {
            let search = GIFNearestColor(palette.map { (Int($0.r), Int($0.g), Int($0.b)) },
                                         weights: (Int32(weights.0), Int32(weights.1), Int32(weights.2)))
            var mismatches = 0
            for _ in 0..<4_000 {
                let (r, g, b) = (Int.random(in: 0...255, using: &random), Int.random(in: 0...255, using: &random),
                                 Int.random(in: 0...255, using: &random))
                let expected = exhaustiveNearest(r, g, b, in: palette, weights: weights)
                if answer(search, r, g, b) != expected { mismatches += 1 }
            }
            #expect(mismatches == 0, "\(palettes[which].name), weights \(weights)")
        }
    }

    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    static let palettes: [(name: String, colors: [GIFIndexedImage.Color])] = {
        var random = Generator(state: 17)
        func color() -> GIFIndexedImage.Color {
            GIFIndexedImage.Color(r: .random(in: 0...255, using: &random), g: .random(in: 0...255, using: &random),
                                  b: .random(in: 0...255, using: &random))
        }
        let full = (0..<256).map { _ in color() }
        let few = (0..<5).map { _ in color() }
        // Equal greens everywhere, and repeated colours: ties on distance that only the index breaks.
        let sameGreen = (0..<64).map { (step: Int) -> GIFIndexedImage.Color in
            GIFIndexedImage.Color(r: UInt8(step * 4), g: 128, b: UInt8(255 - step * 4))
        }
        let repeated = (0..<40).map { _ in color() }.flatMap { [$0, $0] }
        let greys = (0..<16).map { (step: Int) -> GIFIndexedImage.Color in
            let level = UInt8(step * 17)
            return GIFIndexedImage.Color(r: level, g: level, b: level)
        }
        return [("256 random", full), ("5 random", few), ("one green", sameGreen), ("each twice", repeated),
                ("16 greys", greys), ("one colour", [color()])]
    }()

    @Test("every cell maps to the colour an exhaustive search finds", arguments: palettes.indices)
    func sameAsExhaustive(_ which: Int) {
        let palette = Self.palettes[which].colors
        // One pixel at the centre of every 6-bit cell of a coarse lattice covering the cube, corners included.
        var pixels: [UInt8] = []
        for r in stride(from: 0, through: 255, by: 12) {
            for g in stride(from: 0, through: 255, by: 8) {
                for b in stride(from: 0, through: 255, by: 12) { pixels += [UInt8(r), UInt8(g), UInt8(b), 255] }
            }
        }
        let count = pixels.count / 4
        var indices = [UInt8](repeating: 0, count: count)
        var mapper = GIFColorMapper(palette: palette)
        pixels.withUnsafeBytes { bytes in
            let region = GIFPixelRegion(bytes: bytes, imageWidth: count,
                                        rect: PixelRect(x: 0, y: 0, width: count, height: 1))
            mapper.map(region, transparentIndex: 0, into: &indices)
        }
        var mismatches = 0
        for pixel in 0..<count {
            let (r, g, b) = (Int(pixels[pixel * 4]), Int(pixels[pixel * 4 + 1]), Int(pixels[pixel * 4 + 2]))
            // The mapper searches from the centre of the pixel's 6-bit cell.
            func centre(_ value: Int) -> Int { (value >> 2) << 2 | 2 }
            let expected = Self.exhaustiveNearest(centre(r), centre(g), centre(b), in: palette)
            if Int(indices[pixel]) != expected { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(Self.palettes[which].name): \(mismatches) of \(count) cells")
    }
}
