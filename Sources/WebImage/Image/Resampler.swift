/// A rectangle of a source bitmap in pixel coordinates, fractional values allowed: what a resample reads.
struct ResamplingRegion: Equatable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    /// The whole of a bitmap of `size`.
    init(covering size: PixelSize) {
        self.init(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
    }

    init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

extension PixelBuffer {
    /// A copy of these pixels resampled to `size` with `filter`, as two separable passes in fixed point.
    ///
    /// Pixels with alpha are premultiplied while filtering so transparent neighbours do not bleed dark fringes
    /// into the result, and converted back to straight alpha at the end. Throws
    /// `ImageError.Code.badImageData` for an empty size and `ImageError.Code.imageTooLarge` above
    /// ``DecodeLimits/default``'s pixel limit or with a side (of the source or the result) over
    /// ``maximumFilteredSide``.
    public func resized(to size: PixelSize, filter: ResamplingFilter = .lanczos3) throws -> PixelBuffer {
        try resampled(to: size, from: ResamplingRegion(covering: self.size),
                      horizontalFilter: filter, verticalFilter: filter, hasAlpha: nil)
    }

    /// The longest side the filters accept (2¹⁸ = 262 144 pixels, four times the largest JPEG or GIF side).
    /// Their buffers and weight tables grow with the length of one line, so a pathological 89-million-by-1
    /// image, within the pixel limit, must not reach them.
    public static let maximumFilteredSide = 1 << 18

    /// Throws `ImageError.Code.imageTooLarge` when a side of `size` exceeds ``maximumFilteredSide``.
    static func checkFilterable(_ size: PixelSize) throws {
        guard size.width <= maximumFilteredSide, size.height <= maximumFilteredSide else {
            throw ImageError(.imageTooLarge, "\(size) has a side over \(maximumFilteredSide) pixels")
        }
    }

    /// Resamples `region` of these pixels to `size`, each axis with its own filter.
    ///
    /// `hasAlpha` skips the scan for transparency when the caller knows (`false` means every alpha is 255).
    /// The axis that shrinks the most data is done first, so the second pass has less to read.
    func resampled(
        to size: PixelSize, from region: ResamplingRegion,
        horizontalFilter: ResamplingFilter, verticalFilter: ResamplingFilter, hasAlpha: Bool?
    ) throws -> PixelBuffer {
        guard size.width > 0, size.height > 0 else {
            throw ImageError(.badImageData, "cannot resize to \(size)")
        }
        guard size.area <= DecodeLimits.default.maxPixels else {
            throw ImageError(.imageTooLarge, "\(size) is over the limit of \(DecodeLimits.default.maxPixels) pixels")
        }
        try Self.checkFilterable(self.size)
        try Self.checkFilterable(size)
        let whole = ResamplingRegion(covering: self.size)
        if size == self.size && region == whole { return self }
        let horizontal = size.width == width && region.x == 0 && region.width == Double(width)
            ? nil
            : ResamplingWeights(sourceLength: width, outputLength: size.width, filter: horizontalFilter,
                                offset: region.x, span: region.width)
        let vertical = size.height == height && region.y == 0 && region.height == Double(height)
            ? nil
            : ResamplingWeights(sourceLength: height, outputLength: size.height, filter: verticalFilter,
                                offset: region.y, span: region.height)
        let columns = horizontal?.sourceRange ?? 0..<width
        let rows = vertical?.sourceRange ?? 0..<height
        let premultiplied = hasAlpha ?? containsTransparency

        return try withUnsafeBytes { sourceBytes in
            // Alpha images are filtered premultiplied: copy the rows that are read, premultiplying on the way.
            var premultipliedCopy: (pointer: UnsafeMutableRawPointer, capacity: Int)?
            defer { premultipliedCopy.map { PixelMemoryPool.shared.recycle($0.pointer, capacity: $0.capacity) } }
            let source = sourceBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var input = ResamplingPlane(base: source, rowBytes: bytesPerRow, firstRow: 0, firstColumn: 0)
            if premultiplied {
                guard let block = PixelMemoryPool.shared.allocate(byteCount: rows.count * bytesPerRow) else {
                    throw ImageError(.imageTooLarge, "cannot allocate a premultiplied copy of \(self.size)")
                }
                premultipliedCopy = block
                let copy = block.pointer.assumingMemoryBound(to: UInt8.self)
                AlphaPremultiplication.premultiply(source + rows.lowerBound * bytesPerRow, into: copy,
                                                   pixels: rows.count * width)
                input = ResamplingPlane(base: copy, rowBytes: bytesPerRow, firstRow: rows.lowerBound, firstColumn: 0)
            }
            return try PixelBuffer(width: size.width, height: size.height) { outputBytes in
                let output = outputBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                try Self.resample(input, columns: columns, rows: rows, into: output, size: size,
                                  horizontal: horizontal, vertical: vertical)
                if premultiplied { AlphaPremultiplication.unpremultiply(output, pixels: size.area) }
            }
        }
    }

    /// Runs the one or two passes from `input` into `output` (tightly packed, `size`).
    private static func resample(
        _ input: ResamplingPlane, columns: Range<Int>, rows: Range<Int>,
        into output: UnsafeMutablePointer<UInt8>, size: PixelSize,
        horizontal: ResamplingWeights?, vertical: ResamplingWeights?
    ) throws {
        let outputRowBytes = size.width * 4
        switch (horizontal, vertical) {
        case (nil, nil):
            // Same size, same region: rows copied as they are.
            for y in 0..<size.height {
                (output + y * outputRowBytes).update(from: input.row(y), count: outputRowBytes)
            }
        case (let horizontal?, nil):
            ResamplingPasses.horizontal(input, rows: 0..<size.height, weights: horizontal,
                                        into: output, rowBytes: outputRowBytes)
        case (nil, let vertical?):
            ResamplingPasses.vertical(input, columns: 0..<size.width, weights: vertical,
                                      into: output, rowBytes: outputRowBytes)
        case (let horizontal?, let vertical?):
            // Both orders produce the same kind of result; pick the one with fewer multiply-adds.
            let horizontalFirst = rows.count * horizontal.workPerLine + size.width * vertical.workPerLine
            let verticalFirst = columns.count * vertical.workPerLine + size.height * horizontal.workPerLine
            let intermediateWidth = horizontalFirst <= verticalFirst ? size.width : columns.count
            let intermediateHeight = horizontalFirst <= verticalFirst ? rows.count : size.height
            let intermediateRowBytes = intermediateWidth * 4
            guard let block = PixelMemoryPool.shared.allocate(byteCount: intermediateRowBytes * intermediateHeight)
            else {
                throw ImageError(.imageTooLarge,
                                 "cannot allocate a \(intermediateWidth)x\(intermediateHeight) resampling buffer")
            }
            defer { PixelMemoryPool.shared.recycle(block.pointer, capacity: block.capacity) }
            let scratch = block.pointer.assumingMemoryBound(to: UInt8.self)
            if horizontalFirst <= verticalFirst {
                ResamplingPasses.horizontal(input, rows: rows, weights: horizontal,
                                            into: scratch, rowBytes: intermediateRowBytes)
                let middle = ResamplingPlane(base: UnsafePointer(scratch), rowBytes: intermediateRowBytes,
                                             firstRow: rows.lowerBound, firstColumn: 0)
                ResamplingPasses.vertical(middle, columns: 0..<size.width, weights: vertical,
                                          into: output, rowBytes: outputRowBytes)
            } else {
                ResamplingPasses.vertical(input, columns: columns, weights: vertical,
                                          into: scratch, rowBytes: intermediateRowBytes)
                let middle = ResamplingPlane(base: UnsafePointer(scratch), rowBytes: intermediateRowBytes,
                                             firstRow: 0, firstColumn: columns.lowerBound)
                ResamplingPasses.horizontal(middle, rows: 0..<size.height, weights: horizontal,
                                            into: output, rowBytes: outputRowBytes)
            }
        }
        // A pass left early when the work's budget ran out: its output is incomplete, and this throws.
        try WorkBudget.checkpoint()
    }
}

/// A read-only view of RGBA8 rows where row `firstRow` and column `firstColumn` sit at `base`: lets a pass
/// address a band or strip of a bitmap with the bitmap's own coordinates.
struct ResamplingPlane {
    let base: UnsafePointer<UInt8>
    let rowBytes: Int
    let firstRow: Int
    let firstColumn: Int

    /// The first byte of row `y` at column `firstColumn`.
    @inline(__always)
    func row(_ y: Int) -> UnsafePointer<UInt8> { base + (y - firstRow) * rowBytes }

    /// The byte of pixel (`x`, `y`).
    @inline(__always)
    func pixel(_ x: Int, _ y: Int) -> UnsafePointer<UInt8> { row(y) + (x - firstColumn) * 4 }
}
