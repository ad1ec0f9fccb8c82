/// The filters of deep bitmaps: the 8-bit resampler's and blur's kernels, computed in floating point on
/// premultiplied samples (0 to 1), so nothing is rounded to fewer than 16 bits within a filter. Rows are converted
/// to floating point as they are read: the only image-sized buffers are the result and, for the resampler, the
/// output of its first pass.
extension DeepPixelBuffer {
    /// Row `y` as premultiplied samples scaled to 0...1, one vector a pixel, into `row`.
    func premultipliedRow(_ y: Int, into row: inout [SIMD4<Float>]) {
        let scale: Float = 1 / 65535
        samples.withUnsafeBufferPointer { source in
            var index = y * width * 4
            for x in 0..<width {
                let alpha = Float(source[index + 3]) * scale
                row[x] = SIMD4(Float(source[index]) * scale * alpha, Float(source[index + 1]) * scale * alpha,
                               Float(source[index + 2]) * scale * alpha, alpha)
                index += 4
            }
        }
    }

    /// Straight-alpha 16-bit samples of premultiplied `value` (0...1, clamped): colour divided by alpha again.
    @inline(__always)
    static func samples(ofPremultiplied value: SIMD4<Float>) -> SIMD4<UInt16> {
        let alpha = min(max(value.w, 0), 1)
        let colour = alpha > 0 ? value / alpha : .zero
        let straight = SIMD4(colour.x, colour.y, colour.z, alpha)
            .clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
        return SIMD4<UInt16>((straight * 65535).rounded(.toNearestOrAwayFromZero))
    }

    /// `region` of these pixels resampled to `size`, each axis with its own filter and the 8-bit resampler's
    /// weights (``PixelBuffer/resized(to:filter:)``), alpha premultiplied while filtering.
    func resampled(to size: PixelSize, from region: ResamplingRegion, horizontalFilter: ResamplingFilter,
                   verticalFilter: ResamplingFilter) throws -> DeepPixelBuffer {
        if size == self.size && region == ResamplingRegion(covering: self.size) { return self }
        guard size.width > 0, size.height > 0 else { throw ImageError(.badImageData, "cannot resize to \(size)") }
        guard size.area <= DecodeLimits.default.maxPixels else {
            throw ImageError(.imageTooLarge, "\(size) is over the limit of \(DecodeLimits.default.maxPixels) pixels")
        }
        try PixelBuffer.checkFilterable(self.size)
        try PixelBuffer.checkFilterable(size)
        let horizontal = ResamplingWeights(sourceLength: width, outputLength: size.width, filter: horizontalFilter,
                                           offset: region.x, span: region.width)
        let vertical = ResamplingWeights(sourceLength: height, outputLength: size.height, filter: verticalFilter,
                                         offset: region.y, span: region.height)
        let rows = vertical.sourceRange
        // Along x for the rows the vertical pass reads, then along y.
        var across = [SIMD4<Float>](repeating: .zero, count: size.width * rows.count)
        var line = [SIMD4<Float>](repeating: .zero, count: width)
        let horizontalWeights = horizontal.floatWeights
        for y in rows {
            try WorkBudget.checkpoint()
            premultipliedRow(y, into: &line)
            let out = (y - rows.lowerBound) * size.width
            for x in 0..<size.width {
                var sum = SIMD4<Float>.zero
                let start = horizontal.starts[x], weights = x * horizontal.taps
                for tap in 0..<horizontal.counts[x] {
                    sum += line[start + tap] * horizontalWeights[weights + tap]
                }
                across[out + x] = sum
            }
        }
        let verticalWeights = vertical.floatWeights
        return try sameDepth(size) { output in
            for y in 0..<size.height {
                try WorkBudget.checkpoint()
                let start = vertical.starts[y] - rows.lowerBound, weights = y * vertical.taps
                for x in 0..<size.width {
                    var sum = SIMD4<Float>.zero
                    for tap in 0..<vertical.counts[y] {
                        sum += across[(start + tap) * size.width + x] * verticalWeights[weights + tap]
                    }
                    let pixel = Self.samples(ofPremultiplied: sum), index = (y * size.width + x) * 4
                    for channel in 0..<4 { output[index + channel] = pixel[channel] }
                }
            }
        }
    }

    /// These pixels blurred by `passes` runs of `box` along x, then along y (the 8-bit blur's extended boxes,
    /// edges repeated), premultiplied. Between the two directions the rows are kept premultiplied in the result's
    /// own 16-bit samples, so no image-sized floating-point copy is made.
    func boxBlurred(_ box: ExtendedBox, passes: Int) throws -> DeepPixelBuffer {
        var line = [SIMD4<Double>](repeating: .zero, count: max(width, height))
        var blurred = line
        var row = [SIMD4<Float>](repeating: .zero, count: width)
        func blur(count: Int) {
            for _ in 0..<passes {
                Self.extendedBoxPass(box, line, count: count, into: &blurred)
                swap(&line, &blurred)
            }
        }
        return try sameDepth(size) { output in
            for y in 0..<height {
                try WorkBudget.checkpoint()
                premultipliedRow(y, into: &row)
                for x in 0..<width { line[x] = SIMD4<Double>(row[x]) }
                blur(count: width)
                for x in 0..<width {
                    let value = (SIMD4<Float>(line[x]).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
                                 * 65535).rounded(.toNearestOrAwayFromZero)
                    for channel in 0..<4 { output[(y * width + x) * 4 + channel] = UInt16(value[channel]) }
                }
            }
            for x in 0..<width {
                try WorkBudget.checkpoint()
                for y in 0..<height {
                    let index = (y * width + x) * 4
                    line[y] = SIMD4(Double(output[index]), Double(output[index + 1]), Double(output[index + 2]),
                                    Double(output[index + 3])) / 65535
                }
                blur(count: height)
                for y in 0..<height {
                    let pixel = Self.samples(ofPremultiplied: SIMD4<Float>(line[y]))
                    for channel in 0..<4 { output[(y * width + x) * 4 + channel] = pixel[channel] }
                }
            }
        }
    }

    /// One extended box over the first `count` values of `line`, samples beyond the ends repeating the end ones.
    private static func extendedBoxPass(_ box: ExtendedBox, _ line: [SIMD4<Double>], count: Int,
                                        into output: inout [SIMD4<Double>]) {
        let radius = box.radius, edge = Double(box.edge), scale = Double(box.scale)
        func sample(_ index: Int) -> SIMD4<Double> { line[min(max(index, 0), count - 1)] }
        var window = SIMD4<Double>.zero
        for offset in -radius...radius { window += sample(offset) }
        for position in 0..<count {
            output[position] = (window + (sample(position - radius - 1) + sample(position + radius + 1)) * edge)
                * scale
            window += sample(position + radius + 1) - sample(position - radius)
        }
    }
}

extension ResamplingWeights {
    /// The fixed-point weights as fractions of one, in the same slots.
    var floatWeights: [Float] {
        switch storage {
        case .narrow(let weights):
            let one = Float(1 << Int16.precisionBits)
            return weights.map { Float($0) / one }
        case .wide(let weights):
            let one = Float(1 << Int32.precisionBits)
            return weights.map { Float($0) / one }
        }
    }
}
