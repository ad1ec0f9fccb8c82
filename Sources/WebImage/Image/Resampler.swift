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
    func resampled(
        to size: PixelSize, from region: ResamplingRegion,
        horizontalFilter: ResamplingFilter, verticalFilter: ResamplingFilter, hasAlpha: Bool?
    ) throws -> PixelBuffer {
        try Resampling.check(self.size, to: size)
        if size == self.size && region == ResamplingRegion(covering: self.size) { return self }
        let premultiplied = hasAlpha ?? containsTransparency
        return try withUnsafeBytes { source in
            try PixelBuffer(width: size.width, height: size.height) { output in
                try Resampling.resample(source.bindMemory(to: UInt8.self).baseAddress!, size: self.size,
                                        region: region, into: output.bindMemory(to: UInt8.self).baseAddress!,
                                        size: size, horizontalFilter: horizontalFilter,
                                        verticalFilter: verticalFilter, premultiplied: premultiplied)
            }
        }
    }
}

extension DeepPixelBuffer {
    /// `region` of these pixels resampled to `size`, each axis with its own filter: the 8-bit resampler
    /// (``PixelBuffer/resized(to:filter:)``) run on 16-bit samples.
    func resampled(to size: PixelSize, from region: ResamplingRegion, horizontalFilter: ResamplingFilter,
                   verticalFilter: ResamplingFilter, hasAlpha: Bool? = nil) throws -> DeepPixelBuffer {
        try Resampling.check(self.size, to: size)
        if size == self.size && region == ResamplingRegion(covering: self.size) { return self }
        let premultiplied = hasAlpha ?? containsTransparency
        return try withUnsafeSamples { source in
            try sameDepth(size) { output in
                try Resampling.resample(source.baseAddress!, size: self.size, region: region,
                                        into: output.baseAddress!, size: size, horizontalFilter: horizontalFilter,
                                        verticalFilter: verticalFilter, premultiplied: premultiplied)
            }
        }
    }
}

/// The separable resampler, once for both depths: which axes need a pass, in which order, over which rows, and
/// where the premultiplied copy and the intermediate bitmap live. The passes themselves are the sample type's.
enum Resampling {
    /// Throws for a resample the filters refuse: an empty result, one above ``DecodeLimits/default``'s pixel limit,
    /// a side of either over ``PixelBuffer/maximumFilteredSide``.
    static func check(_ source: PixelSize, to size: PixelSize) throws {
        guard size.width > 0, size.height > 0 else {
            throw ImageError(.badImageData, "cannot resize to \(size)")
        }
        guard size.area <= DecodeLimits.default.maxPixels else {
            throw ImageError(.imageTooLarge, "\(size) is over the limit of \(DecodeLimits.default.maxPixels) pixels")
        }
        try PixelBuffer.checkFilterable(source)
        try PixelBuffer.checkFilterable(size)
    }

    /// Resamples `region` of the `sourceSize` bitmap at `source` into the `size` bitmap at `output` (both tightly
    /// packed RGBA). With `premultiplied`, the rows read are premultiplied into a copy first and the output turned
    /// back to straight alpha. The axis that shrinks the most data is done first, so the second pass reads less.
    static func resample<Sample: PixelSample>(
        _ source: UnsafePointer<Sample>, size sourceSize: PixelSize, region: ResamplingRegion,
        into output: UnsafeMutablePointer<Sample>, size: PixelSize,
        horizontalFilter: ResamplingFilter, verticalFilter: ResamplingFilter, premultiplied: Bool
    ) throws {
        let width = sourceSize.width, height = sourceSize.height
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
        let rowStride = width * 4
        var input = ResamplingPlane(base: source, rowStride: rowStride, firstRow: 0, firstColumn: 0)
        // Alpha images are filtered premultiplied: copy the rows that are read, premultiplying on the way.
        var premultipliedCopy: ScratchSamples<Sample>?
        defer { premultipliedCopy?.release() }
        if premultiplied {
            let copy = try ScratchSamples<Sample>(count: rows.count * rowStride, for: "a premultiplied copy")
            premultipliedCopy = copy
            Sample.premultiply(source + rows.lowerBound * rowStride, into: copy.base, pixels: rows.count * width)
            input = ResamplingPlane(base: UnsafePointer(copy.base), rowStride: rowStride, firstRow: rows.lowerBound,
                                    firstColumn: 0)
        }
        let outputStride = size.width * 4
        switch (horizontal, vertical) {
        case (nil, nil):
            // Same size, same region: rows copied as they are.
            for y in 0..<size.height { (output + y * outputStride).update(from: input.row(y), count: outputStride) }
        case (let horizontal?, nil):
            Sample.resampleAlongX(input, rows: 0..<size.height, weights: horizontal, into: output,
                                  rowStride: outputStride)
        case (nil, let vertical?):
            Sample.resampleAlongY(input, columns: 0..<size.width, weights: vertical, into: output,
                                  rowStride: outputStride)
        case (let horizontal?, let vertical?):
            // Both orders produce the same kind of result; pick the one with fewer multiply-adds.
            let horizontalFirst = rows.count * horizontal.workPerLine + size.width * vertical.workPerLine
                <= columns.count * vertical.workPerLine + size.height * horizontal.workPerLine
            let middleWidth = horizontalFirst ? size.width : columns.count
            let middleHeight = horizontalFirst ? rows.count : size.height
            let scratch = try ScratchSamples<Sample>(count: middleWidth * 4 * middleHeight,
                                                     for: "a \(middleWidth)x\(middleHeight) resampling buffer")
            defer { scratch.release() }
            if horizontalFirst {
                Sample.resampleAlongX(input, rows: rows, weights: horizontal, into: scratch.base,
                                      rowStride: middleWidth * 4)
                let middle = ResamplingPlane(base: UnsafePointer(scratch.base), rowStride: middleWidth * 4,
                                             firstRow: rows.lowerBound, firstColumn: 0)
                Sample.resampleAlongY(middle, columns: 0..<size.width, weights: vertical, into: output,
                                      rowStride: outputStride)
            } else {
                Sample.resampleAlongY(input, columns: columns, weights: vertical, into: scratch.base,
                                      rowStride: middleWidth * 4)
                let middle = ResamplingPlane(base: UnsafePointer(scratch.base), rowStride: middleWidth * 4,
                                             firstRow: 0, firstColumn: columns.lowerBound)
                Sample.resampleAlongX(middle, rows: 0..<size.height, weights: horizontal, into: output,
                                      rowStride: outputStride)
            }
        }
        // A pass left early when the work's budget ran out: its output is incomplete, and this throws.
        try WorkBudget.checkpoint()
        if premultiplied { Sample.unpremultiply(output, pixels: size.area) }
    }
}
