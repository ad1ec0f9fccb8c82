/// One box filter of the extended-box approximation of a Gaussian: a window of `2 * radius + 1` samples plus
/// one more on each side weighted `edge` (0 ≤ edge < 1), so the variance can take any value, not only those of
/// whole-pixel boxes.
struct ExtendedBox {
    /// Whole samples on each side of the centre.
    let radius: Int
    /// Weight of the sample just outside the window on each side.
    let edge: Float
    /// One over the total weight, `2 * radius + 1 + 2 * edge`.
    let scale: Float

    /// The box whose `passes`-fold repetition has the variance of a Gaussian with deviation `sigma`
    /// (Gwosdek, Grewenig, Bruhn, Weickert: "Theoretical foundations of Gaussian convolution by extended box
    /// filtering", 2011).
    init(sigma: Double, passes: Int = 3) {
        let variance = sigma * sigma / Double(passes)
        let whole = ((12 * variance + 1).squareRoot() - 1) / 2
        let radius = Int(whole.rounded(.down))
        let r = Double(radius)
        let edge = (2 * r + 1) * (r * (r + 1) - 3 * variance) / (6 * (variance - (r + 1) * (r + 1)))
        self.radius = radius
        self.edge = Float(min(max(edge, 0), 1))
        self.scale = 1 / Float(2 * r + 1 + 2 * min(max(edge, 0), 1))
    }

    /// Samples repeated beyond each end of a line so a window never leaves the buffer.
    var padding: Int { radius + 1 }
}

extension PixelBuffer {
    /// These pixels blurred by `passes` runs of `box` along x, then along y.
    ///
    /// Rows are filtered in `Float` lines that stay in L1 and written back as bytes; columns are then filtered
    /// in strips of ``stripPixels`` columns gathered into a contiguous `Float` block, so the vertical passes
    /// run over whole cache lines of independent lanes. Everything happens in the output buffer: no
    /// image-sized scratch memory.
    func boxBlurred(_ box: ExtendedBox, passes: Int, hasAlpha: Bool) throws -> PixelBuffer {
        try withUnsafeBytes { sourceBytes in
            let source = sourceBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return try PixelBuffer(width: width, height: height) { outputBytes in
                let output = outputBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                if hasAlpha {
                    AlphaPremultiplication.premultiply(source, into: output, pixels: width * height)
                    Self.blurRows(UnsafePointer(output), into: output, width: width, height: height,
                                  box: box, passes: passes)
                } else {
                    Self.blurRows(source, into: output, width: width, height: height, box: box, passes: passes)
                }
                Self.blurColumns(output, width: width, height: height, box: box, passes: passes)
                if hasAlpha { AlphaPremultiplication.unpremultiply(output, pixels: width * height) }
            }
        }
    }

    /// Columns per vertical strip: 16 RGBA pixels are one 64-byte cache line of the bitmap.
    static let stripPixels = 16

    private static func blurRows(_ source: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>,
                                 width: Int, height: Int, box: ExtendedBox, passes: Int) {
        let padding = box.padding, length = width + 2 * padding
        withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 2 * length) { lines in
            var from = lines.baseAddress!, to = lines.baseAddress! + length
            for y in 0..<height {
                let row = UnsafeRawPointer(source + y * width * 4)
                for x in 0..<width {
                    from[padding + x] = SIMD4<Float>(row.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self))
                }
                for _ in 0..<passes {
                    Self.padEnds(from, count: width, padding: padding)
                    Self.boxPass(from, into: to, count: width, box: box)
                    swap(&from, &to)
                }
                let destination = UnsafeMutableRawPointer(output + y * width * 4)
                for x in 0..<width {
                    let value = (from[padding + x] + 0.5).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                    destination.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: SIMD4<Int32>(value)),
                                           toByteOffset: x * 4, as: SIMD4<UInt8>.self)
                }
            }
        }
    }

    private static func blurColumns(_ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
                                    box: ExtendedBox, passes: Int) {
        let padding = box.padding, length = height + 2 * padding
        let lanes = stripPixels * 4
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * length * lanes + lanes) { memory in
            memory.initialize(repeating: 0)
            var from = memory.baseAddress!, to = memory.baseAddress! + length * lanes
            let sums = memory.baseAddress! + 2 * length * lanes
            var firstColumn = 0
            while firstColumn < width {
                let used = min(stripPixels, width - firstColumn) * 4
                for y in 0..<height {
                    let row = pixels + (y * width + firstColumn) * 4
                    let line = from + (padding + y) * lanes
                    for lane in 0..<used { line[lane] = Float(row[lane]) }
                }
                for _ in 0..<passes {
                    Self.padEnds(from, count: height, padding: padding, lanes: lanes)
                    Self.boxPass(from, into: to, count: height, lanes: lanes, sums: sums, box: box)
                    swap(&from, &to)
                }
                for y in 0..<height {
                    let row = pixels + (y * width + firstColumn) * 4
                    let line = from + (padding + y) * lanes
                    for lane in 0..<used {
                        row[lane] = UInt8(truncatingIfNeeded: Int32(min(max(line[lane] + 0.5, 0), 255)))
                    }
                }
                firstColumn += stripPixels
            }
        }
    }

    /// Repeats the first and last of `count` samples (starting at `line + padding`) into the padding.
    private static func padEnds(_ line: UnsafeMutablePointer<SIMD4<Float>>, count: Int, padding: Int) {
        let first = line[padding], last = line[padding + count - 1]
        for index in 0..<padding {
            line[index] = first
            line[padding + count + index] = last
        }
    }

    /// The same for lines of `lanes` floats (one per row of a strip).
    private static func padEnds(_ block: UnsafeMutablePointer<Float>, count: Int, padding: Int, lanes: Int) {
        let first = block + padding * lanes, last = block + (padding + count - 1) * lanes
        for index in 0..<padding {
            (block + index * lanes).update(from: first, count: lanes)
            (block + (padding + count + index) * lanes).update(from: last, count: lanes)
        }
    }

    /// One extended box along a padded line of pixels: a running sum, two loads and two adds per sample.
    private static func boxPass(_ from: UnsafeMutablePointer<SIMD4<Float>>, into to: UnsafeMutablePointer<SIMD4<Float>>,
                                count: Int, box: ExtendedBox) {
        let padding = box.padding, radius = box.radius
        let edge = SIMD4<Float>(repeating: box.edge), scale = SIMD4<Float>(repeating: box.scale)
        var sum = SIMD4<Float>.zero
        for offset in -radius...radius { sum += from[padding + offset] }
        for index in padding..<(padding + count) {
            let outer = from[index - radius - 1] + from[index + radius + 1]
            to[index] = (sum + edge * outer) * scale
            sum += from[index + radius + 1] - from[index - radius]
        }
    }

    /// One extended box down a strip: the same running sum, `lanes` columns at a time.
    private static func boxPass(_ from: UnsafeMutablePointer<Float>, into to: UnsafeMutablePointer<Float>,
                                count: Int, lanes: Int, sums: UnsafeMutablePointer<Float>, box: ExtendedBox) {
        let padding = box.padding, radius = box.radius, edge = box.edge, scale = box.scale
        sums.update(repeating: 0, count: lanes)
        for offset in -radius...radius {
            let line = from + (padding + offset) * lanes
            for lane in 0..<lanes { sums[lane] += line[lane] }
        }
        for index in padding..<(padding + count) {
            let before = from + (index - radius - 1) * lanes, first = from + (index - radius) * lanes
            let after = from + (index + radius + 1) * lanes
            let output = to + index * lanes
            for lane in 0..<lanes {
                output[lane] = (sums[lane] + edge * (before[lane] + after[lane])) * scale
                sums[lane] += after[lane] - first[lane]
            }
        }
    }
}
