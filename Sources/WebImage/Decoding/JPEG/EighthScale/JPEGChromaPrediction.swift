import Foundation

/// The four quarter means of a 4:2:0 chroma block whose AC never arrived (a download cut after the DC scan),
/// predicted from what did arrive: the chroma block's DC, its neighbours' DCs, and the four luma samples that the
/// block covers at 1/8 (one luma block each, so luma is exact there).
///
/// libjpeg's 2×2 IDCT reads the chroma's lowest AC coefficients; libjpeg given only DC estimates them from the DC
/// gradient (block smoothing). This predicts them better, with two terms:
/// - **Chroma from luma.** Where colour changes, brightness usually changes with it: over the 3×3 blocks around
///   this one, chroma means are fitted as a linear function of luma means (least squares, the slope shrunk
///   towards zero where luma is flat), and the block's quarters follow its own luma quarters by that slope.
/// - **The gradient luma does not explain.** What is left of the chroma gradient across the neighbours tilts the
///   block: a quarter moves by ``gradientWeight`` of the neighbours' difference towards its side.
///
/// Measured against the whole file's decode resized to 300 px wide (RGB PSNR, quality 85, libjpeg's default
/// progression, the cut at the end of the DC scan): the benchmark's 12 MP photo 44.2 dB through this decoder
/// (libjpeg's block smoothing on the same prefix: 39.7). Through a model of it on libjpeg's 1/8 samples (chroma
/// constant over the block in brackets): that photo 45.2 (42.6), a chart 43.6 (37.5), a screenshot 67.7 (51.2),
/// an upscaled camera photo 40.5 (39.1), and the tests' 1000×750 photo of hard-edged shapes, to 100 px, only
/// 37.5. Whether a file is like the last is told by ``expectedError(chroma:luma:)`` before the download stops;
/// such a file waits for its chroma bands.
enum JPEGChromaPrediction {
    /// How far a quarter follows the residual gradient (fitted on the images above; 0 keeps the block flat).
    static let gradientWeight = 0.3
    /// The slope's shrinkage: added to the luma variance over nine blocks (a flat area's noise is not a fit).
    static let flatLumaVariance = 16.0 * 9
    /// The largest ``expectedError(chroma:luma:)`` (RMS, in sample levels) at which a download stops after DC:
    /// above the benchmark photo (2.2), the chart (1.5) and the screenshot (0.2); below the upscaled photo (4.9)
    /// and the hard-edged shapes (7.5), which then wait for their chroma bands.
    static let acceptedError = 3.0

    /// Whether the chroma of a frame whose components have these sampling factors is predicted here: three
    /// components, the first sampled 2×2 and the others 1×1 (4:2:0), so that each chroma quarter lies over
    /// exactly one luma block. A download of such a file may stop after its DC scan (``JPEGPrefixScanner``).
    static func applies(toSampling factors: [(h: Int, v: Int)]) -> Bool {
        factors.count == 3 && factors[0] == (2, 2) && factors.dropFirst().allSatisfy { $0 == (1, 1) }
    }

    /// Whether `frame`, read from a 4:2:0 file's start cut after its DC (closed with an end-of-image marker), is
    /// one whose chroma this predicts within ``acceptedError`` (``expectedError(chroma:luma:)``) for both chroma
    /// planes.
    static func holds(for frame: JPEGEighthScaleDecoder.Frame) -> Bool {
        guard applies(toSampling: frame.components.map { ($0.h, $0.v) }),
              frame.components.allSatisfy({ $0.knownBit != nil }) else { return false }
        let limit = acceptedError
        return frame.components.dropFirst().allSatisfy { expectedError(chroma: $0, luma: frame.components[0]) <= limit }
    }

    /// `chroma`'s samples, two a block side, on its padded block grid (as ``JPEGEighthScaleImage/samples(_:)``
    /// returns them), predicted from its DC and `luma`'s.
    static func samples(_ chroma: JPEGEighthScaleDecoder.Component, luma: JPEGEighthScaleDecoder.Component)
        -> (values: [UInt8], stride: Int, perBlock: Int) {
        guard let grid = Grid(chroma: chroma, luma: luma) else { return JPEGEighthScaleImage.samples(chroma) }
        let quarters = predict(lumaQuarters: grid.lumaQuarters, chromaMeans: grid.chromaMeans, wide: grid.wide,
                               high: grid.high)
        // Written on the padded grid the pixels are read from; the padding's samples are never shown.
        let stride = chroma.paddedWide * 2
        var values = [UInt8](repeating: 0, count: chroma.dc.count * 4)
        values.withUnsafeMutableBufferPointer { values in
            quarters.withUnsafeBufferPointer { quarters in
                for blockY in 0..<grid.high {
                    for blockX in 0..<grid.wide {
                        let block = blockY * grid.wide + blockX
                        for quarter in 0..<4 {
                            // Clamped (and NaN refused) before the conversion, which traps outside its range.
                            let value = quarters[block * 4 + quarter] + 128.5
                            let sample = value.isNaN ? 128 : max(0, min(255, value))
                            values[(blockY * 2 + quarter / 2) * stride + blockX * 2 + quarter % 2] = UInt8(sample)
                        }
                    }
                }
            }
        }
        return (values, stride, 2)
    }

    /// How far off the prediction is likely to be for this image, in sample levels (RMS): the same prediction
    /// one scale up, where the answer is known. Each 2×2 group of chroma blocks is predicted from the group's
    /// mean and the luma means over its four blocks, and compared with the four blocks' own means. Images keep
    /// much the same structure from one scale to the next, so a file whose chroma this misses at the coarser
    /// scale (hard-edged colour, detail at the block size) is one whose quarters it would miss too.
    static func expectedError(chroma: JPEGEighthScaleDecoder.Component, luma: JPEGEighthScaleDecoder.Component)
        -> Double {
        guard let grid = Grid(chroma: chroma, luma: luma) else { return .infinity }
        let wide = grid.wide / 2, high = grid.high / 2
        guard wide > 0, high > 0 else { return .infinity }
        var chromaQuarters: [Double] = [], chromaMeans: [Double] = []
        let lumaQuarters = doubles(wide * high * 4) { lumaQuarters in
            chromaQuarters = doubles(wide * high * 4) { chromaQuarters in
                chromaMeans = doubles(wide * high) { chromaMeans in
                    for group in 0..<(wide * high) {
                        let groupX = group % wide, groupY = group / wide
                        var sum = 0.0
                        for quarter in 0..<4 {
                            let block = (groupY * 2 + quarter / 2) * grid.wide + groupX * 2 + quarter % 2
                            // The block's luma mean, from the luma under its four quarters.
                            lumaQuarters[group * 4 + quarter] = (grid.lumaQuarters[block * 4]
                                + grid.lumaQuarters[block * 4 + 1] + grid.lumaQuarters[block * 4 + 2]
                                + grid.lumaQuarters[block * 4 + 3]) / 4
                            chromaQuarters[group * 4 + quarter] = grid.chromaMeans[block]
                            sum += grid.chromaMeans[block]
                        }
                        chromaMeans[group] = sum / 4
                    }
                }
            }
        }
        let predicted = predict(lumaQuarters: lumaQuarters, chromaMeans: chromaMeans, wide: wide, high: high)
        let squares = zip(predicted, chromaQuarters).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        return (squares / Double(predicted.count)).squareRoot()
    }

    /// A chroma plane's block means and the luma under each block, centred on zero, in sample levels, over the
    /// plane's own block grid (the padding to whole MCUs is not read: a scan of one component never fills it).
    private struct Grid {
        let wide: Int
        let high: Int
        /// Luma at 1/8 under each chroma block's four quarters: `block * 4 + quarter`.
        var lumaQuarters: [Double]
        var chromaMeans: [Double]

        init?(chroma: JPEGEighthScaleDecoder.Component, luma: JPEGEighthScaleDecoder.Component) {
            wide = chroma.blocksWide
            high = chroma.blocksHigh
            let chromaStride = chroma.paddedWide, lumaStride = luma.paddedWide
            let lumaWide = luma.blocksWide, lumaHigh = luma.blocksHigh
            guard wide > 0, high > 0, lumaWide > 0, lumaHigh > 0, chromaStride >= wide, lumaStride == chromaStride * 2,
                  chroma.dc.count >= chromaStride * high, luma.dc.count >= lumaStride * lumaHigh,
                  !chroma.quantizer.isEmpty, !luma.quantizer.isEmpty else { return nil }
            // A block's mean is its DC times its quantizer over 8.
            let chromaScale = Double(chroma.quantizer[0]) / 8, lumaScale = Double(luma.quantizer[0]) / 8
            let (wide, high) = (wide, high)
            var chromas: [Double] = []
            let quarters = JPEGChromaPrediction.doubles(wide * high * 4) { quarters in
                chromas = JPEGChromaPrediction.doubles(wide * high) { chromas in
                    luma.dc.withUnsafeBufferPointer { lumaDC in
                        chroma.dc.withUnsafeBufferPointer { chromaDC in
                            for blockY in 0..<high {
                                // A quarter past luma's own grid (an odd number of luma blocks) repeats the last one.
                                let top = min(blockY * 2, lumaHigh - 1) * lumaStride
                                let bottom = min(blockY * 2 + 1, lumaHigh - 1) * lumaStride
                                for blockX in 0..<wide {
                                    let block = blockY * wide + blockX
                                    let left = min(blockX * 2, lumaWide - 1)
                                    let right = min(blockX * 2 + 1, lumaWide - 1)
                                    quarters[block * 4] = Double(lumaDC[top + left]) * lumaScale
                                    quarters[block * 4 + 1] = Double(lumaDC[top + right]) * lumaScale
                                    quarters[block * 4 + 2] = Double(lumaDC[bottom + left]) * lumaScale
                                    quarters[block * 4 + 3] = Double(lumaDC[bottom + right]) * lumaScale
                                    chromas[block] = Double(chromaDC[blockY * chromaStride + blockX]) * chromaScale
                                }
                            }
                        }
                    }
                }
            }
            lumaQuarters = quarters
            chromaMeans = chromas
        }
    }

    /// Each block's four quarters (`block * 4 + quarter`) from the block means of a `wide`×`high` grid and the
    /// luma under each quarter.
    private static func predict(lumaQuarters: [Double], chromaMeans: [Double], wide: Int, high: Int) -> [Double] {
        let count = wide * high
        let lumaMeans = doubles(count) { means in
            lumaQuarters.withUnsafeBufferPointer { quarters in
                for block in 0..<count {
                    means[block] = (quarters[block * 4] + quarters[block * 4 + 1] + quarters[block * 4 + 2]
                        + quarters[block * 4 + 3]) / 4
                }
            }
        }
        // The least-squares slope of chroma against luma over each block's 3×3 neighbourhood (edges repeated),
        // from the neighbourhood sums of L, C, L² and LC, shrunk by the flat-luma variance. The four are summed
        // together, along each row first (`rows`), and down three rows where the slope is taken.
        let rows = [SIMD4<Double>](unsafeUninitializedCapacity: count) { rows, initialized in
            lumaMeans.withUnsafeBufferPointer { luma in
                chromaMeans.withUnsafeBufferPointer { chroma in
                    func terms(_ index: Int) -> SIMD4<Double> {
                        let l = luma[index], c = chroma[index]
                        return SIMD4(l, c, l * l, l * c)
                    }
                    for y in 0..<high {
                        let row = y * wide
                        for x in 0..<wide {
                            rows[row + x] = terms(row + max(x - 1, 0)) + terms(row + x)
                                + terms(row + min(x + 1, wide - 1))
                        }
                    }
                }
            }
            initialized = count
        }
        // Locals, not the statics, inside the loops (a global's lazy-initialisation check on every access).
        let weight = gradientWeight, flat = flatLumaVariance
        return doubles(count * 4) { out in
            lumaQuarters.withUnsafeBufferPointer { quarters in
                lumaMeans.withUnsafeBufferPointer { luma in
                    chromaMeans.withUnsafeBufferPointer { chroma in
                        rows.withUnsafeBufferPointer { rows in
                            for blockY in 0..<high {
                                let above = max(blockY - 1, 0) * wide, below = min(blockY + 1, high - 1) * wide
                                for blockX in 0..<wide {
                                    let block = blockY * wide + blockX
                                    let left = blockY * wide + max(blockX - 1, 0)
                                    let right = blockY * wide + min(blockX + 1, wide - 1)
                                    let sums = rows[above + blockX] + rows[block] + rows[below + blockX]
                                    // Covariance over variance, both times nine (one division a block, not three).
                                    let covariance = 9 * sums.w - sums.x * sums.y
                                    let variance = 9 * sums.z - sums.x * sums.x
                                    // Rounding can take a flat neighbourhood's variance just below zero.
                                    let slope = covariance / (max(variance, 0) + 9 * flat)
                                    // Half the neighbours' difference across the block, less what luma's explains.
                                    let acrossX = ((chroma[right] - chroma[left])
                                        - slope * (luma[right] - luma[left])) / 2
                                    let acrossY = ((chroma[below + blockX] - chroma[above + blockX])
                                        - slope * (luma[below + blockX] - luma[above + blockX])) / 2
                                    let tilt = weight * acrossX, lean = weight * acrossY
                                    let base = chroma[block] - slope * luma[block]
                                    out[block * 4] = base + slope * quarters[block * 4] - tilt - lean
                                    out[block * 4 + 1] = base + slope * quarters[block * 4 + 1] + tilt - lean
                                    out[block * 4 + 2] = base + slope * quarters[block * 4 + 2] - tilt + lean
                                    out[block * 4 + 3] = base + slope * quarters[block * 4 + 3] + tilt + lean
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `count` values, each written by `fill` (no zeroing first: these grids are megabytes, built per request).
    private static func doubles(_ count: Int, _ fill: (UnsafeMutableBufferPointer<Double>) -> Void) -> [Double] {
        [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(buffer)
            initialized = count
        }
    }
}
