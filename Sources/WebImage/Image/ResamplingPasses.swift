/// The two one-dimensional passes of the separable resampler on RGBA8 rows (``PixelSample``'s for 8 bits), in
/// fixed point.
///
/// Both loops take taps in pairs, `a × w₀ + b × w₁` with 8-bit samples and 16-bit weights widened to 32 bits:
/// the optimiser turns that into one `pmaddwd` (SSE2) per eight products instead of emulating 32-bit
/// multiplies. The horizontal pass works one output pixel (four channels) at a time; the vertical pass runs
/// across whole rows, where every byte is an independent lane, sixteen at a time in registers.
extension UInt8 {
    /// Resamples `rows` of `input` along x. Output row `y` goes to `output + (y - rows.lowerBound) * rowBytes`.
    static func resampleAlongX(
        _ input: ResamplingPlane<UInt8>, rows: Range<Int>, weights: ResamplingWeights,
        into output: UnsafeMutablePointer<UInt8>, rowStride rowBytes: Int
    ) {
        switch weights.storage {
        case .narrow(let values):
            resampleAlongX(input, rows: rows, weights: weights, values: values, into: output, rowBytes: rowBytes)
        case .wide(let values):
            resampleAlongX(input, rows: rows, weights: weights, values: values, into: output, rowBytes: rowBytes)
        }
    }

    /// Resamples `columns` of `input` along y. Output row `y` holds the columns from `columns.lowerBound` on.
    static func resampleAlongY(
        _ input: ResamplingPlane<UInt8>, columns: Range<Int>, weights: ResamplingWeights,
        into output: UnsafeMutablePointer<UInt8>, rowStride rowBytes: Int
    ) {
        switch weights.storage {
        case .narrow(let values):
            resampleAlongY(input, columns: columns, weights: weights, values: values, into: output, rowBytes: rowBytes)
        case .wide(let values):
            resampleAlongY(input, columns: columns, weights: weights, values: values, into: output, rowBytes: rowBytes)
        }
    }

    private static func resampleAlongX<Weight: ResamplingWeight>(
        _ input: ResamplingPlane<UInt8>, rows: Range<Int>, weights: ResamplingWeights, values: [Weight],
        into output: UnsafeMutablePointer<UInt8>, rowBytes: Int
    ) {
        let half = SIMD4<Int32>(repeating: 1 << (Weight.precisionBits - 1))
        weights.starts.withUnsafeBufferPointer { starts in
            weights.counts.withUnsafeBufferPointer { counts in
                values.withUnsafeBufferPointer { allWeights in
                    let taps = weights.taps
                    for y in rows {
                        if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
                        let sourceRow = UnsafeRawPointer(input.pixel(0, y))
                        let destination = UnsafeMutableRawPointer(output + (y - rows.lowerBound) * rowBytes)
                        for x in 0..<starts.count {
                            var pixel = sourceRow + (starts[x] - input.firstColumn) &* 4
                            var weight = allWeights.baseAddress! + x &* taps
                            var sum = half
                            var remaining = counts[x]
                            while remaining >= 2 {
                                let a = SIMD4<Int32>(truncatingIfNeeded: pixel.loadUnaligned(as: SIMD4<UInt8>.self))
                                let b = SIMD4<Int32>(truncatingIfNeeded: pixel.loadUnaligned(
                                    fromByteOffset: 4, as: SIMD4<UInt8>.self))
                                sum &+= a &* Int32(truncatingIfNeeded: weight[0])
                                    &+ b &* Int32(truncatingIfNeeded: weight[1])
                                pixel += 8
                                weight += 2
                                remaining -= 2
                            }
                            if remaining > 0 {
                                let a = SIMD4<Int32>(truncatingIfNeeded: pixel.loadUnaligned(as: SIMD4<UInt8>.self))
                                sum &+= a &* Int32(truncatingIfNeeded: weight[0])
                            }
                            destination.storeBytes(of: narrow(sum, Weight.precisionBits), toByteOffset: x &* 4,
                                                   as: SIMD4<UInt8>.self)
                        }
                    }
                }
            }
        }
    }

    private static func resampleAlongY<Weight: ResamplingWeight>(
        _ input: ResamplingPlane<UInt8>, columns: Range<Int>, weights: ResamplingWeights, values: [Weight],
        into output: UnsafeMutablePointer<UInt8>, rowBytes: Int
    ) {
        let lineBytes = columns.count * 4
        let vectorBytes = lineBytes & ~15
        let bits = Weight.precisionBits
        let half = Int32(1) << (bits - 1)
        values.withUnsafeBufferPointer { allWeights in
            for y in 0..<weights.starts.count {
                if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
                let count = weights.counts[y]
                let weight = allWeights.baseAddress! + y * weights.taps
                let firstRow = UnsafeRawPointer(input.pixel(columns.lowerBound, weights.starts[y]))
                let rowStride = input.rowStride  // samples of one byte: also the stride in bytes
                let destination = UnsafeMutableRawPointer(output + y * rowBytes)
                var offset = 0
                while offset < vectorBytes {
                    var sum = SIMD16<Int32>(repeating: half)
                    var row = firstRow + offset
                    var tap = 0
                    while tap + 1 < count {
                        let a = SIMD16<Int32>(truncatingIfNeeded: row.loadUnaligned(as: SIMD16<UInt8>.self))
                        let b = SIMD16<Int32>(truncatingIfNeeded: row.loadUnaligned(
                            fromByteOffset: rowStride, as: SIMD16<UInt8>.self))
                        sum &+= a &* Int32(truncatingIfNeeded: weight[tap])
                            &+ b &* Int32(truncatingIfNeeded: weight[tap + 1])
                        row += 2 * rowStride
                        tap += 2
                    }
                    if tap < count {
                        let a = SIMD16<Int32>(truncatingIfNeeded: row.loadUnaligned(as: SIMD16<UInt8>.self))
                        sum &+= a &* Int32(truncatingIfNeeded: weight[tap])
                    }
                    let clamped = pointwiseMin(pointwiseMax(sum &>> bits, .zero), SIMD16(repeating: 255))
                    destination.storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: clamped), toByteOffset: offset,
                                           as: SIMD16<UInt8>.self)
                    offset += 16
                }
                // The last one to three pixels of the row, one byte at a time.
                while offset < lineBytes {
                    var sum = half
                    for tap in 0..<count {
                        let sample = (firstRow + tap * rowStride).load(fromByteOffset: offset, as: UInt8.self)
                        sum &+= Int32(sample) &* Int32(truncatingIfNeeded: weight[tap])
                    }
                    destination.storeBytes(of: UInt8(truncatingIfNeeded: Swift.min(Swift.max(sum &>> bits, 0), 255)),
                                           toByteOffset: offset, as: UInt8.self)
                    offset += 1
                }
            }
        }
    }

    /// Four fixed-point sums to four bytes, rounded (the half was added up front) and clamped to 0...255.
    @inline(__always)
    private static func narrow(_ sum: SIMD4<Int32>, _ bits: Int32) -> SIMD4<UInt8> {
        let clamped = pointwiseMin(pointwiseMax(sum &>> bits, .zero), SIMD4(repeating: 255))
        return SIMD4<UInt8>(truncatingIfNeeded: clamped)
    }
}
