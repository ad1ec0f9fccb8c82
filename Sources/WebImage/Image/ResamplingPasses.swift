/// The two one-dimensional passes of the separable resampler, on RGBA8 rows, in 16.16 fixed point.
///
/// Both loops are written over raw pointers so the optimiser sees plain integer arithmetic: the horizontal pass
/// works one pixel (four channels) at a time in a SIMD register; the vertical pass runs over whole rows, where
/// every byte is an independent lane, in blocks that stay in L1.
enum ResamplingPasses {
    private static let half: Int32 = 1 << (ResamplingWeights.precisionBits - 1)

    /// Resamples `rows` of `input` along x. Output row `y` goes to `output + (y - rows.lowerBound) * rowBytes`.
    static func horizontal(
        _ input: ResamplingPlane, rows: Range<Int>, weights: ResamplingWeights,
        into output: UnsafeMutablePointer<UInt8>, rowBytes: Int
    ) {
        weights.starts.withUnsafeBufferPointer { starts in
            weights.counts.withUnsafeBufferPointer { counts in
                weights.weights.withUnsafeBufferPointer { allWeights in
                    let taps = weights.taps
                    for y in rows {
                        let sourceRow = UnsafeRawPointer(input.pixel(0, y))
                        var destination = UnsafeMutableRawPointer(output + (y - rows.lowerBound) * rowBytes)
                        var rowWeights = allWeights.baseAddress!
                        for x in 0..<starts.count {
                            var pixel = sourceRow + (starts[x] - input.firstColumn) &* 4
                            var weight = rowWeights
                            var sum = SIMD4<Int32>(repeating: half)
                            for _ in 0..<counts[x] {
                                let bytes = pixel.loadUnaligned(as: SIMD4<UInt8>.self)
                                sum &+= SIMD4<Int32>(truncatingIfNeeded: bytes) &* weight.pointee
                                pixel += 4
                                weight += 1
                            }
                            destination.storeBytes(of: narrow(sum), as: SIMD4<UInt8>.self)
                            destination += 4
                            rowWeights += taps
                        }
                    }
                }
            }
        }
    }

    /// Resamples `columns` of `input` along y. Output row `y` holds the columns from `columns.lowerBound` on.
    static func vertical(
        _ input: ResamplingPlane, columns: Range<Int>, weights: ResamplingWeights,
        into output: UnsafeMutablePointer<UInt8>, rowBytes: Int
    ) {
        let lineBytes = columns.count * 4
        let block = 1024
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: block) { sums in
            let sum = sums.baseAddress!
            weights.weights.withUnsafeBufferPointer { allWeights in
                for y in 0..<weights.starts.count {
                    let first = weights.starts[y], count = weights.counts[y]
                    let rowWeights = allWeights.baseAddress! + y * weights.taps
                    let destinationRow = output + y * rowBytes
                    var offset = 0
                    while offset < lineBytes {
                        let length = min(block, lineBytes - offset)
                        let firstRow = input.pixel(columns.lowerBound, first) + offset
                        let firstWeight = rowWeights[0]
                        for index in 0..<length {
                            sum[index] = half &+ Int32(firstRow[index]) &* firstWeight
                        }
                        for tap in 1..<max(count, 1) {
                            let row = input.pixel(columns.lowerBound, first + tap) + offset
                            let weight = rowWeights[tap]
                            for index in 0..<length { sum[index] &+= Int32(row[index]) &* weight }
                        }
                        let destination = destinationRow + offset
                        for index in 0..<length {
                            let value = sum[index] &>> ResamplingWeights.precisionBits
                            destination[index] = UInt8(truncatingIfNeeded: min(max(value, 0), 255))
                        }
                        offset += length
                    }
                }
            }
        }
    }

    /// Four fixed-point sums to four bytes, rounded (the half was added up front) and clamped to 0...255.
    @inline(__always)
    private static func narrow(_ sum: SIMD4<Int32>) -> SIMD4<UInt8> {
        let shifted = sum &>> SIMD4(repeating: ResamplingWeights.precisionBits)
        let clamped = shifted.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
        return SIMD4<UInt8>(truncatingIfNeeded: clamped)
    }
}
