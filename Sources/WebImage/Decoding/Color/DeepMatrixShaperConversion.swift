import CLCMS2

/// ``MatrixShaperConversion``'s mapping for deep sources (RGBA of 16 bits a sample), to 8 bits or kept at 16:
/// each sample through the source's tone curve, the 3×3 matrix and the destination's inverted curve, in floating
/// point. Little CMS would resample such a 16-bit transform into a grid of a few dozen points a side, and where
/// the grid's cells straddle a steep curve (PQ, HLG) or the clipping of colours outside the target's gamut, its
/// interpolation put pixels up to a dozen levels off (30 for PQ); here only the tables' steps are approximated.
///
/// The source curve is sampled at every 16th code (4 097 points) and interpolated between them; the destination's
/// inverted curve is a table indexed by linear light, 16 384 steps for 8-bit output (as the 8-bit path) and 65 536
/// for 16-bit output. Out-of-gamut colours are clipped per channel, as Little CMS clips them.
struct DeepMatrixShaperConversion: Sendable {
    private static let steps = 4_096
    /// Each channel's curve at codes 0, 16, 32 … 65 536 (the last clamped to the curve's end): red's 4 097
    /// values, then green's, then blue's.
    private let curves: [Float]
    /// The matrix's three columns (lane 3 unused): what one unit of linear red, green and blue adds.
    private let columns: [SIMD4<Float>]
    /// Linear light to the destination's 8-bit codes, or to its 16-bit codes when the depth is kept (the other
    /// table is empty).
    private let output8: [UInt8]
    private let output16: [UInt16]
    /// Whether the result has 16 bits a sample.
    let keepsDepth: Bool

    /// The conversion from `source` to `destination`, or `nil` when either is not a matrix-shaper RGB profile
    /// whose colorants and curves can be read (Little CMS then does the work).
    init?(from source: LittleCMSProfile, to destination: LittleCMSProfile, keepingDepth: Bool) {
        guard source.colorSpace == cmsSigRgbData, source.isMatrixShaper, destination.isMatrixShaper,
              let sourceColorants = source.colorants, let destinationColorants = destination.colorants,
              let inverse = MatrixShaperConversion.inverse(MatrixShaperConversion.columns(destinationColorants))
        else { return nil }
        let matrix = MatrixShaperConversion.multiply(inverse, MatrixShaperConversion.columns(sourceColorants))
        columns = (0..<3).map { column in
            SIMD4(Float(matrix[column]), Float(matrix[3 + column]), Float(matrix[6 + column]), 0)
        }
        var curves = [Float](repeating: 0, count: 3 * (Self.steps + 1))
        for step in 0...Self.steps {
            guard let values = source.curveValues(at: min(Float(step * 16) / 65_535, 1)), values.count == 3 else {
                return nil
            }
            for channel in 0..<3 { curves[channel * (Self.steps + 1) + step] = min(max(values[channel], 0), 1) }
        }
        self.curves = curves
        keepsDepth = keepingDepth
        if keepingDepth {
            guard let table = destination.inverseCurveTable(size: 65_536, codes: UInt16.self) else { return nil }
            output16 = table
            output8 = []
        } else {
            guard let table = destination.inverseCurveTable(size: MatrixShaperConversion.outputTableSize) else {
                return nil
            }
            output8 = table
            output16 = []
        }
    }

    /// Converts `count` pixels of RGBA16 (machine byte order, alpha straight) from `source` into RGBA8, or into
    /// RGBA16 when the depth is kept (then `destination` may be `source`: each pixel is read before it is
    /// written). Alpha is carried over, rounded to 8 bits as Little CMS rounds it.
    func convert(_ source: UnsafePointer<UInt16>, into destination: UnsafeMutableRawPointer, count: Int) {
        curves.withUnsafeBufferPointer { curves in
            guard let curves = curves.baseAddress else { return }
            let red = columns[0], green = columns[1], blue = columns[2]
            if keepsDepth {
                let target = destination.assumingMemoryBound(to: UInt16.self)
                output16.withUnsafeBufferPointer { output in
                    guard let output = output.baseAddress else { return }
                    for offset in stride(from: 0, to: count * 4, by: 4) {
                        let light = Self.mix(Self.linear(source + offset, curves), red, green, blue)
                        let alpha = source[offset + 3]
                        let codes = Self.indices(light, top: 65_535)
                        target[offset] = output[codes.x]
                        target[offset + 1] = output[codes.y]
                        target[offset + 2] = output[codes.z]
                        target[offset + 3] = alpha
                    }
                }
            } else {
                let target = destination.assumingMemoryBound(to: UInt8.self)
                let top = Float(MatrixShaperConversion.outputTableSize - 1)
                output8.withUnsafeBufferPointer { output in
                    guard let output = output.baseAddress else { return }
                    for offset in stride(from: 0, to: count * 4, by: 4) {
                        let light = Self.mix(Self.linear(source + offset, curves), red, green, blue)
                        let alpha = UInt8(truncatingIfNeeded: (UInt32(source[offset + 3]) &* 65_281 &+ 8_388_608) &>> 24)
                        let codes = Self.indices(light, top: top)
                        target[offset] = output[codes.x]
                        target[offset + 1] = output[codes.y]
                        target[offset + 2] = output[codes.z]
                        target[offset + 3] = alpha
                    }
                }
            }
        }
    }

    /// The pixel's three samples through their curves, interpolated between the table's points.
    @inline(__always)
    private static func linear(_ pixel: UnsafePointer<UInt16>, _ curves: UnsafePointer<Float>) -> SIMD3<Float> {
        var light = SIMD3<Float>()
        for channel in 0..<3 {
            let sample = Int(pixel[channel])
            let index = channel &* (steps &+ 1) &+ sample &>> 4
            let low = curves[index], high = curves[index &+ 1]
            light[channel] = low + (high - low) * Float(sample & 15) * (1 / 16)
        }
        return light
    }

    /// The matrix product: each channel's light times its column, summed.
    @inline(__always)
    private static func mix(_ light: SIMD3<Float>, _ red: SIMD4<Float>, _ green: SIMD4<Float>,
                            _ blue: SIMD4<Float>) -> SIMD3<Float> {
        let sum = red * light.x + green * light.y + blue * light.z
        return SIMD3(sum.x, sum.y, sum.z)
    }

    /// Destination linear light, clipped to 0…1, as indices of a table of `top` + 1 entries (rounded: after the
    /// clip every value is positive, so adding a half and truncating rounds it).
    @inline(__always)
    private static func indices(_ light: SIMD3<Float>, top: Float) -> SIMD3<Int> {
        @inline(__always) func index(_ value: Float) -> Int { Int(Swift.min(Swift.max(value, 0), 1) * top + 0.5) }
        return SIMD3(index(light.x), index(light.y), index(light.z))
    }
}
