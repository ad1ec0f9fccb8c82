import CLCMS2

/// The fast path for the common case, a matrix-shaper RGB profile (Display P3, Adobe RGB, most camera and
/// screen profiles) into sRGB or Display P3: three tone curves, a 3×3 matrix, the destination's curve inverted.
/// Little CMS runs the same mathematics through its generic pipeline at about 20 ns a pixel; here the source
/// curves are a 256-entry table per channel, the matrix is nine integer multiply-adds (14 fraction bits, as Little
/// CMS's own 8-bit matrix-shaper optimisation uses), and the destination curve a 16 384-entry table indexed by
/// linear light (steps well under half an 8-bit code even in the darkest tones, where the sRGB curve is
/// steepest). Out-of-gamut colours are clipped per
/// channel, as Little CMS clips them. Relative colorimetric and perceptual are the same mapping for such
/// profiles, and black-point compensation changes nothing (their black is zero).
struct MatrixShaperConversion: Sendable {
    static let outputTableSize = 16_384
    /// Linear light and the matrix are fixed point with this many fraction bits (1.0 is 16 384): integer
    /// arithmetic throughout, no float-to-integer conversion per sample.
    static let fractionBits = 14

    /// The source curves: red's 256 entries, then green's, then blue's, in linear light (fixed point).
    private let inputCurves: [Int]
    /// Row-major destination-from-source matrix on linear light (fixed point).
    private let matrix: [Int]
    /// Linear light (0…1, in ``outputTableSize`` steps) to the destination's 8-bit code.
    private let outputCurve: [UInt8]

    /// The conversion from `source` to `destination`, or `nil` when either is not a matrix-shaper RGB profile
    /// whose colorants and curves can be read (Little CMS then does the work).
    init?(from source: LittleCMSProfile, to destination: LittleCMSProfile) {
        guard source.colorSpace == cmsSigRgbData, source.isMatrixShaper, destination.isMatrixShaper,
              let sourceColorants = source.colorants, let destinationColorants = destination.colorants,
              let inverse = Self.inverse(Self.columns(destinationColorants))
        else { return nil }
        let one = Double(1 << Self.fractionBits)
        var curves = [Int](repeating: 0, count: 768)
        for code in 0..<256 {
            guard let values = source.curveValues(at: Float(code) / 255), values.count == 3 else { return nil }
            for channel in 0..<3 { curves[channel * 256 + code] = Int((Double(min(max(values[channel], 0), 1)) * one).rounded()) }
        }
        let product = Self.multiply(inverse, Self.columns(sourceColorants))
        // The destination's curve inverted, sampled: Little CMS's own reverse of its tone curve.
        guard let output = destination.inverseCurveTable(size: Self.outputTableSize) else { return nil }
        inputCurves = curves
        matrix = product.map { Int(($0 * one).rounded()) }
        outputCurve = output
    }

    /// Converts `count` RGBA pixels from `source` into `destination` (which may be the same memory), alpha
    /// copied.
    func convert(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int) {
        inputCurves.withUnsafeBufferPointer { curve in
            outputCurve.withUnsafeBufferPointer { output in
                guard let curve = curve.baseAddress, let output = output.baseAddress else { return }
                let m = matrix
                let (m00, m01, m02, m10, m11, m12, m20, m21, m22) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
                let top = Self.outputTableSize - 1, rounding = 1 << (Self.fractionBits - 1)
                var offset = 0
                let end = count * 4
                while offset < end {
                    let r = curve[Int(source[offset])], g = curve[256 + Int(source[offset + 1])]
                    let b = curve[512 + Int(source[offset + 2])]
                    let alpha = source[offset + 3]
                    // Clipped into the table's range: out-of-gamut colours lose what does not fit, per channel.
                    let x = min(max((m00 * r + m01 * g + m02 * b + rounding) >> Self.fractionBits, 0), top)
                    let y = min(max((m10 * r + m11 * g + m12 * b + rounding) >> Self.fractionBits, 0), top)
                    let z = min(max((m20 * r + m21 * g + m22 * b + rounding) >> Self.fractionBits, 0), top)
                    destination[offset] = output[x]
                    destination[offset + 1] = output[y]
                    destination[offset + 2] = output[z]
                    destination[offset + 3] = alpha
                    offset += 4
                }
            }
        }
    }

    /// The colorants as the columns of a row-major 3×3 matrix.
    private static func columns(_ colorants: [SIMD3<Double>]) -> [Double] {
        [colorants[0].x, colorants[1].x, colorants[2].x,
         colorants[0].y, colorants[1].y, colorants[2].y,
         colorants[0].z, colorants[1].z, colorants[2].z]
    }

    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { index in
            let row = index / 3, column = index % 3
            return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
        }
    }

    private static func inverse(_ m: [Double]) -> [Double]? {
        let determinant = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6])
        guard abs(determinant) > 1e-12 else { return nil }
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return cofactors.map { $0 / determinant }
    }
}
