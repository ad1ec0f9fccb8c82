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
    /// Both directions run the same one-dimensional pass over lines of 16-float elements: along x an element
    /// holds one pixel of four neighbouring rows, along y one row of a strip four pixels wide. Sixteen
    /// independent lanes per element hide the latency of the running sum, and every line stays in L1 or L2.
    /// The rows are written to the output as bytes, then the columns are filtered in place there: no
    /// image-sized scratch memory.
    func boxBlurred(_ box: ExtendedBox, passes: Int, hasAlpha: Bool) throws -> PixelBuffer {
        try withUnsafeBytes { sourceBytes in
            let source = sourceBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return try PixelBuffer(width: width, height: height) { outputBytes in
                let output = outputBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let blur = try BoxBlurLines(box: box, passes: passes, longestLine: max(width, height))
                defer { blur.release() }
                if hasAlpha {
                    AlphaPremultiplication.premultiply(source, into: output, pixels: width * height)
                    blur.blurRows(UnsafePointer(output), into: output, width: width, height: height)
                } else {
                    blur.blurRows(source, into: output, width: width, height: height)
                }
                try WorkBudget.checkpoint()
                blur.blurColumns(output, width: width, height: height)
                try WorkBudget.checkpoint()
                if hasAlpha { AlphaPremultiplication.unpremultiply(output, pixels: width * height) }
            }
        }
    }
}

/// Two line buffers of 16-float elements, with the box's padding at both ends, and the passes over them.
private struct BoxBlurLines {
    typealias Element = SIMD16<Float>
    static let elementBytes = MemoryLayout<Element>.stride
    /// Pixels per element: four RGBA pixels are sixteen floats.
    static let pixelsPerElement = 4

    let box: ExtendedBox
    let passes: Int
    let lines: UnsafeMutableRawPointer
    let capacity: Int
    let lineBytes: Int

    init(box: ExtendedBox, passes: Int, longestLine: Int) throws {
        self.box = box
        self.passes = passes
        lineBytes = (longestLine + 2 * box.padding) * Self.elementBytes
        guard let block = PixelMemoryPool.shared.allocate(byteCount: 2 * lineBytes) else {
            throw ImageError(.imageTooLarge, "cannot allocate blur lines of \(longestLine) pixels")
        }
        lines = block.pointer
        capacity = block.capacity
    }

    func release() { PixelMemoryPool.shared.recycle(lines, capacity: capacity) }

    /// Rows in groups of four, each element one column of the group.
    func blurRows(_ source: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        let rowBytes = width * 4
        for firstRow in stride(from: 0, to: height, by: 4) {
            if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
            // A group past the last row repeats the last row; its results are not written.
            let rows = min(4, height - firstRow)
            let sources = (0..<4).map { UnsafeRawPointer(source + (firstRow + min($0, rows - 1)) * rowBytes) }
            let result = filter(count: width) { line in
                for x in 0..<width {
                    let offset = x * 4
                    let pixels = SIMD4<UInt32>(
                        sources[0].loadUnaligned(fromByteOffset: offset, as: UInt32.self),
                        sources[1].loadUnaligned(fromByteOffset: offset, as: UInt32.self),
                        sources[2].loadUnaligned(fromByteOffset: offset, as: UInt32.self),
                        sources[3].loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                    store(Self.floats(unsafeBitCast(pixels, to: SIMD16<UInt8>.self)), line, box.padding + x)
                }
            }
            for x in 0..<width {
                let pixels = unsafeBitCast(Self.bytes(element(result, box.padding + x)), to: SIMD4<UInt32>.self)
                for row in 0..<rows {
                    UnsafeMutableRawPointer(output + (firstRow + row) * rowBytes)
                        .storeBytes(of: pixels[row], toByteOffset: x * 4, as: UInt32.self)
                }
            }
        }
    }

    /// Columns in strips four pixels wide, each element one row of the strip; in place.
    func blurColumns(_ pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        let rowBytes = width * 4
        let raw = UnsafeMutableRawPointer(pixels)
        for firstColumn in stride(from: 0, to: width, by: Self.pixelsPerElement) {
            if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
            let used = min(Self.pixelsPerElement, width - firstColumn) * 4
            let result = filter(count: height) { line in
                for y in 0..<height {
                    let offset = y * rowBytes + firstColumn * 4
                    var bytes = SIMD16<UInt8>.zero
                    if used == 16 {
                        bytes = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                    } else {
                        for lane in 0..<used { bytes[lane] = pixels[offset + lane] }
                    }
                    store(Self.floats(bytes), line, box.padding + y)
                }
            }
            for y in 0..<height {
                let offset = y * rowBytes + firstColumn * 4
                let bytes = Self.bytes(element(result, box.padding + y))
                if used == 16 {
                    raw.storeBytes(of: bytes, toByteOffset: offset, as: SIMD16<UInt8>.self)
                } else {
                    for lane in 0..<used { pixels[offset + lane] = bytes[lane] }
                }
            }
        }
    }

    /// Sixteen bytes to sixteen floats.
    @inline(__always)
    private static func floats(_ bytes: SIMD16<UInt8>) -> Element {
        Element(SIMD16<Int32>(truncatingIfNeeded: bytes))
    }

    /// Sixteen floats rounded to the nearest bytes. Adding 1.5 × 2²³ leaves the rounded integer in the low
    /// bits of the float's pattern (cheaper than a float-to-integer conversion). Values are averages of
    /// bytes, so they lie within 0...255 up to rounding error and need no clamping.
    @inline(__always)
    private static func bytes(_ values: Element) -> SIMD16<UInt8> {
        let bits = unsafeBitCast(values + Element(repeating: 12_582_912), to: SIMD16<UInt32>.self)
        return SIMD16<UInt8>(truncatingIfNeeded: bits)
    }

    @inline(__always)
    private func store(_ value: Element, _ line: UnsafeMutableRawPointer, _ index: Int) {
        line.storeBytes(of: value, toByteOffset: index * Self.elementBytes, as: Element.self)
    }

    /// Fills the first line with `load`, runs the passes, and returns the line holding the result.
    private func filter(count: Int, load: (UnsafeMutableRawPointer) -> Void) -> UnsafeMutableRawPointer {
        var from = lines, to = lines + lineBytes
        load(from)
        for _ in 0..<passes {
            padEnds(from, count: count)
            boxPass(from, into: to, count: count)
            swap(&from, &to)
        }
        return from
    }

    @inline(__always)
    private func element(_ line: UnsafeMutableRawPointer, _ index: Int) -> Element {
        line.loadUnaligned(fromByteOffset: index * Self.elementBytes, as: Element.self)
    }

    /// Repeats the first and last of `count` elements into the padding at each end.
    private func padEnds(_ line: UnsafeMutableRawPointer, count: Int) {
        let first = element(line, box.padding), last = element(line, box.padding + count - 1)
        for index in 0..<box.padding {
            line.storeBytes(of: first, toByteOffset: index * Self.elementBytes, as: Element.self)
            line.storeBytes(of: last, toByteOffset: (box.padding + count + index) * Self.elementBytes, as: Element.self)
        }
    }

    /// One extended box along a padded line: a running sum, so the cost does not depend on the radius.
    private func boxPass(_ from: UnsafeMutableRawPointer, into to: UnsafeMutableRawPointer, count: Int) {
        let padding = box.padding, radius = box.radius
        let edge = Element(repeating: box.edge), scale = Element(repeating: box.scale)
        var sum = Element.zero
        for offset in -radius...radius { sum += element(from, padding + offset) }
        for index in padding..<(padding + count) {
            let outer = element(from, index - radius - 1) + element(from, index + radius + 1)
            to.storeBytes(of: (sum + edge * outer) * scale, toByteOffset: index * Self.elementBytes, as: Element.self)
            sum += element(from, index + radius + 1) - element(from, index - radius)
        }
    }
}
