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
    /// These pixels blurred by `passes` runs of `box` along x, then along y (``BoxBlurLines``).
    func boxBlurred(_ box: ExtendedBox, passes: Int, hasAlpha: Bool) throws -> PixelBuffer {
        try withUnsafeBytes { source in
            try PixelBuffer(width: width, height: height) { output in
                try BoxBlurLines<UInt8>.blur(source.bindMemory(to: UInt8.self).baseAddress!,
                                             into: output.bindMemory(to: UInt8.self).baseAddress!, size: size,
                                             box: box, passes: passes, premultiplied: hasAlpha)
            }
        }
    }
}

extension DeepPixelBuffer {
    /// These pixels blurred as the 8-bit ones are, in 16-bit samples.
    func boxBlurred(_ box: ExtendedBox, passes: Int) throws -> DeepPixelBuffer {
        let premultiplied = containsTransparency
        return try withUnsafeSamples { source in
            try sameDepth(size) { output in
                try BoxBlurLines<UInt16>.blur(source.baseAddress!, into: output.baseAddress!, size: size, box: box,
                                              passes: passes, premultiplied: premultiplied)
            }
        }
    }
}

/// The blur for both depths: two line buffers of 16-float elements, with the box's padding at both ends, and the
/// passes over them.
///
/// Both directions run the same one-dimensional pass over lines of elements: along x an element holds one pixel
/// of four neighbouring rows, along y one row of a strip four pixels wide. Sixteen independent lanes per element
/// hide the latency of the running sum, and every line stays in L1 or L2. The rows are written to the output as
/// samples, then the columns are filtered in place there: no image-sized scratch memory.
struct BoxBlurLines<Sample: PixelSample> {
    typealias Element = SIMD16<Float>
    static var elementBytes: Int { MemoryLayout<Element>.stride }
    /// Pixels per element: four RGBA pixels are sixteen floats.
    static var pixelsPerElement: Int { 4 }

    let box: ExtendedBox
    let passes: Int
    let lines: UnsafeMutableRawPointer
    let capacity: Int
    let lineBytes: Int

    /// Blurs the `size` bitmap at `source` into `output` (both tightly packed). With `premultiplied` the source
    /// is premultiplied into the output first and the result turned back to straight alpha.
    static func blur(_ source: UnsafePointer<Sample>, into output: UnsafeMutablePointer<Sample>, size: PixelSize,
                     box: ExtendedBox, passes: Int, premultiplied: Bool) throws {
        let width = size.width, height = size.height
        let blur = try BoxBlurLines(box: box, passes: passes, longestLine: max(width, height))
        defer { blur.release() }
        if premultiplied {
            Sample.premultiply(source, into: output, pixels: width * height)
            blur.blurRows(UnsafePointer(output), into: output, width: width, height: height)
        } else {
            blur.blurRows(source, into: output, width: width, height: height)
        }
        try WorkBudget.checkpoint()
        blur.blurColumns(output, width: width, height: height)
        try WorkBudget.checkpoint()
        if premultiplied { Sample.unpremultiply(output, pixels: width * height) }
    }

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
    func blurRows(_ source: UnsafePointer<Sample>, into output: UnsafeMutablePointer<Sample>, width: Int,
                  height: Int) {
        let rowStride = width * 4
        for firstRow in stride(from: 0, to: height, by: 4) {
            if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
            // A group past the last row repeats the last row; its results are not written.
            let rows = min(4, height - firstRow)
            let row0 = UnsafeRawPointer(source + firstRow * rowStride)
            let row1 = UnsafeRawPointer(source + (firstRow + min(1, rows - 1)) * rowStride)
            let row2 = UnsafeRawPointer(source + (firstRow + min(2, rows - 1)) * rowStride)
            let row3 = UnsafeRawPointer(source + (firstRow + min(3, rows - 1)) * rowStride)
            let pixelBytes = 4 * MemoryLayout<Sample>.stride, rowBytes = rowStride * MemoryLayout<Sample>.stride
            let result = filter(count: width) { line in
                for x in 0..<width {
                    let offset = x * pixelBytes
                    let pixels = SIMD16(
                        lowHalf: SIMD8(lowHalf: row0.loadUnaligned(fromByteOffset: offset, as: SIMD4<Sample>.self),
                                       highHalf: row1.loadUnaligned(fromByteOffset: offset, as: SIMD4<Sample>.self)),
                        highHalf: SIMD8(lowHalf: row2.loadUnaligned(fromByteOffset: offset, as: SIMD4<Sample>.self),
                                        highHalf: row3.loadUnaligned(fromByteOffset: offset, as: SIMD4<Sample>.self)))
                    store(Self.floats(pixels), line, box.padding + x)
                }
            }
            for x in 0..<width {
                let pixels: SIMD16<Sample> = roundedSamples(element(result, box.padding + x))
                let destination = UnsafeMutableRawPointer(output + firstRow * rowStride + x * 4)
                destination.storeBytes(of: pixels.lowHalf.lowHalf, as: SIMD4<Sample>.self)
                if rows > 1 { destination.storeBytes(of: pixels.lowHalf.highHalf, toByteOffset: rowBytes,
                                                     as: SIMD4<Sample>.self) }
                if rows > 2 { destination.storeBytes(of: pixels.highHalf.lowHalf, toByteOffset: 2 * rowBytes,
                                                     as: SIMD4<Sample>.self) }
                if rows > 3 { destination.storeBytes(of: pixels.highHalf.highHalf, toByteOffset: 3 * rowBytes,
                                                     as: SIMD4<Sample>.self) }
            }
        }
    }

    /// Columns in strips four pixels wide, each element one row of the strip; in place.
    func blurColumns(_ pixels: UnsafeMutablePointer<Sample>, width: Int, height: Int) {
        let rowStride = width * 4
        for firstColumn in stride(from: 0, to: width, by: Self.pixelsPerElement) {
            if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
            let used = min(Self.pixelsPerElement, width - firstColumn) * 4
            let result = filter(count: height) { line in
                for y in 0..<height {
                    let strip = pixels + y * rowStride + firstColumn * 4
                    var samples = SIMD16<Sample>.zero
                    if used == 16 {
                        samples = UnsafeRawPointer(strip).loadUnaligned(as: SIMD16<Sample>.self)
                    } else {
                        for lane in 0..<used { samples[lane] = strip[lane] }
                    }
                    store(Self.floats(samples), line, box.padding + y)
                }
            }
            for y in 0..<height {
                let strip = pixels + y * rowStride + firstColumn * 4
                let samples: SIMD16<Sample> = roundedSamples(element(result, box.padding + y))
                if used == 16 {
                    UnsafeMutableRawPointer(strip).storeBytes(of: samples, as: SIMD16<Sample>.self)
                } else {
                    for lane in 0..<used { strip[lane] = samples[lane] }
                }
            }
        }
    }

    /// Sixteen samples to sixteen floats.
    @inline(__always)
    private static func floats(_ samples: SIMD16<Sample>) -> Element {
        Element(SIMD16<Int32>(truncatingIfNeeded: samples))
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
