/// The two one-dimensional passes of the separable resampler on RGBA16 rows (``PixelSample``'s for 16 bits), in
/// floating point with the fixed-point weights as fractions: 16-bit samples times 14-bit weights would leave no
/// headroom in 32 bits.
/// The horizontal pass works one output pixel at a time; the vertical one across whole rows, eight samples a
/// vector.
extension UInt16 {
    /// Resamples `rows` of `input` along x. Output row `y` goes to `output + (y - rows.lowerBound) * rowStride`.
    static func resampleAlongX(
        _ input: ResamplingPlane<UInt16>, rows: Range<Int>, weights: ResamplingWeights,
        into output: UnsafeMutablePointer<UInt16>, rowStride: Int
    ) {
        let fractions = weights.floatWeights
        fractions.withUnsafeBufferPointer { fractions in
            for y in rows {
                if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
                let sourceRow = UnsafeRawPointer(input.pixel(0, y))
                let destination = UnsafeMutableRawPointer(output + (y - rows.lowerBound) * rowStride)
                for x in 0..<weights.starts.count {
                    let pixels = sourceRow + (weights.starts[x] - input.firstColumn) &* 8
                    let first = x &* weights.taps
                    var sum = SIMD4<Float>.zero
                    for tap in 0..<weights.counts[x] {
                        let pixel = pixels.loadUnaligned(fromByteOffset: tap &* 8, as: SIMD4<UInt16>.self)
                        sum += SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: pixel)) * fractions[first + tap]
                    }
                    destination.storeBytes(of: rounded(sum), toByteOffset: x &* 8, as: SIMD4<UInt16>.self)
                }
            }
        }
    }

    /// Resamples `columns` of `input` along y. Output row `y` holds the columns from `columns.lowerBound` on.
    static func resampleAlongY(
        _ input: ResamplingPlane<UInt16>, columns: Range<Int>, weights: ResamplingWeights,
        into output: UnsafeMutablePointer<UInt16>, rowStride: Int
    ) {
        let lineSamples = columns.count * 4
        let vectorSamples = lineSamples & ~7
        let fractions = weights.floatWeights
        fractions.withUnsafeBufferPointer { fractions in
            for y in 0..<weights.starts.count {
                if WorkBudget.shouldStop() { return }  // the caller's checkpoint throws
                let count = weights.counts[y], first = y * weights.taps
                let firstRow = input.pixel(columns.lowerBound, weights.starts[y])
                let destination = output + y * rowStride
                var offset = 0
                while offset < vectorSamples {
                    var sum = SIMD8<Float>.zero
                    for tap in 0..<count {
                        let row = UnsafeRawPointer(firstRow + tap * input.rowStride + offset)
                        let samples = row.loadUnaligned(as: SIMD8<UInt16>.self)
                        sum += SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: samples)) * fractions[first + tap]
                    }
                    let clamped = sum.clamped(lowerBound: .zero, upperBound: SIMD8(repeating: 65535))
                    let samples: SIMD8<UInt16> = roundedSamples(clamped)
                    UnsafeMutableRawPointer(destination + offset).storeBytes(of: samples, as: SIMD8<UInt16>.self)
                    offset += 8
                }
                // The last pixel of an odd line, one sample at a time.
                while offset < lineSamples {
                    var sum: Float = 0
                    for tap in 0..<count {
                        sum += Float(firstRow[tap * input.rowStride + offset]) * fractions[first + tap]
                    }
                    destination[offset] = UInt16(Swift.min(Swift.max(sum, 0), 65535).rounded(.toNearestOrAwayFromZero))
                    offset += 1
                }
            }
        }
    }

    /// Four sums rounded to the nearest samples, clamped to 0...65535 (ringing filters overshoot).
    @inline(__always)
    private static func rounded(_ sum: SIMD4<Float>) -> SIMD4<UInt16> {
        roundedSamples(sum.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 65535)))
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
