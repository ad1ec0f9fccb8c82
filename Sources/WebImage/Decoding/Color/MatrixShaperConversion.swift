import CColorKernel
import CLCMS2

/// The fast path for the common case, a matrix-shaper RGB profile (Display P3, Adobe RGB, most camera and
/// screen profiles) into sRGB or Display P3: three tone curves, a 3×3 matrix, the destination's curve inverted.
/// Little CMS runs the same mathematics through its generic pipeline at about 20 ns a pixel; here the source
/// curve and the matrix together are a table per channel of what each 8-bit code adds to the three linear outputs
/// (14 fraction bits, as Little CMS's own 8-bit matrix-shaper optimisation uses), summed as vectors, and the
/// destination curve a 16 384-entry table indexed by linear light (steps well under half an 8-bit code even in
/// the darkest tones, where the sRGB curve is steepest). Out-of-gamut colours are clipped per
/// channel, as Little CMS clips them. Relative colorimetric and perceptual are the same mapping for such
/// profiles, and black-point compensation changes nothing (their black is zero). On x86 CPUs a C kernel
/// (`CColorKernel`: AVX-512 64 pixels at a time, else AVX2 8 at a time) does the same arithmetic and gives the same
/// bytes; this loop converts what it leaves.
struct MatrixShaperConversion: Sendable {
    static let outputTableSize = 16_384
    /// Linear light and the matrix are fixed point with this many fraction bits (1.0 is 16 384): integer
    /// arithmetic throughout, no float-to-integer conversion per sample.
    static let fractionBits = 14

    /// For each channel and 8-bit code, what that code adds to the destination's three linear values: the source
    /// curve's value times the matrix column, in fixed point. Red's 256 entries, then green's, then blue's; the
    /// fourth lane is unused. A pixel is then three loads and two vector additions, no multiplication.
    private let contributions: [SIMD4<Int32>]
    /// Linear light (0…1, in ``outputTableSize`` steps) to the destination's 8-bit code, then three bytes of
    /// padding: the vector kernel reads four bytes at each index.
    private let outputCurve: [UInt8]
    /// What the vector kernels read, `nil` where none can run: the CPU has neither AVX2 nor AVX-512, or a matrix
    /// entry does not fit 16 bits.
    private let kernel: KernelTables?

    private struct KernelTables: Sendable {
        /// Each channel's 256 codes in linear light (fixed point), red's then green's then blue's, then one entry
        /// of padding (gathers read two entries at a time).
        let linear: [UInt16]
        /// The matrix row by row, fixed point.
        let matrix: [Int16]
    }

    /// The vector kernels, narrowest first.
    enum Kernel: Int, CaseIterable, Comparable, Sendable {
        case scalar, avx2, avx512

        static func < (a: Kernel, b: Kernel) -> Bool { a.rawValue < b.rawValue }

        fileprivate var cKernel: wi_matrix_shaper_kernel {
            switch self {
            case .scalar: WI_MATRIX_SHAPER_SCALAR
            case .avx2: WI_MATRIX_SHAPER_AVX2
            case .avx512: WI_MATRIX_SHAPER_AVX512
            }
        }
    }

    /// The widest kernel this CPU runs.
    static let widestKernel: Kernel = switch wi_matrix_shaper_widest_kernel() {
    case WI_MATRIX_SHAPER_AVX512: .avx512
    case WI_MATRIX_SHAPER_AVX2: .avx2
    default: .scalar
    }

    /// The conversion from `source` to `destination`, or `nil` when either is not a matrix-shaper RGB profile
    /// whose colorants and curves can be read (Little CMS then does the work).
    init?(from source: LittleCMSProfile, to destination: LittleCMSProfile) {
        guard source.colorSpace == cmsSigRgbData, source.isMatrixShaper, destination.isMatrixShaper,
              let sourceColorants = source.colorants, let destinationColorants = destination.colorants,
              let inverse = Self.inverse(Self.columns(destinationColorants))
        else { return nil }
        let one = Double(1 << Self.fractionBits)
        let product = Self.multiply(inverse, Self.columns(sourceColorants))
        let matrix = product.map { Int(($0 * one).rounded()) }
        // Three products of up to 2¹⁴ × 40 000 sum to under 2³¹: 32-bit lanes hold every sum. Real profiles' matrices
        // stay under 2.5; anything wilder goes to Little CMS.
        guard matrix.allSatisfy({ abs($0) < 40_000 }) else { return nil }
        var contributions = [SIMD4<Int32>](repeating: .zero, count: 768)
        var linearCodes = [UInt16](repeating: 0, count: 768)
        for code in 0..<256 {
            guard let values = source.curveValues(at: Float(code) / 255), values.count == 3 else { return nil }
            for channel in 0..<3 {
                let linear = Int((Double(min(max(values[channel], 0), 1)) * one).rounded())
                linearCodes[channel * 256 + code] = UInt16(linear)
                let column = (0..<3).map { row in Int32(matrix[row * 3 + channel] * linear) }
                contributions[channel * 256 + code] = SIMD4(column[0], column[1], column[2], 0)
            }
        }
        // The destination's curve inverted, sampled: Little CMS's own reverse of its tone curve.
        guard let output = destination.inverseCurveTable(size: Self.outputTableSize) else { return nil }
        self.contributions = contributions
        outputCurve = output + [0, 0, 0]
        kernel = Self.kernelTables(linear: linearCodes, matrix: matrix)
    }

    private static func kernelTables(linear: [UInt16], matrix: [Int]) -> KernelTables? {
        guard widestKernel > .scalar, matrix.allSatisfy({ Int(Int16.min)...Int(Int16.max) ~= $0 }) else { return nil }
        return KernelTables(linear: linear + [0], matrix: matrix.map { Int16($0) })
    }

    /// Whether ``convert(_:into:count:kernel:)`` runs a vector kernel on this machine for this conversion.
    var usesVectorKernel: Bool { kernel != nil }

    /// Converts `count` RGBA pixels from `source` into `destination` (which may be the same memory), alpha
    /// copied. `kernel` caps the kernel used below the widest this CPU runs (the tests compare them all).
    func convert(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>, count: Int,
                 kernel widest: Kernel = widestKernel) {
        var done = 0
        if widest > .scalar, let kernel {
            done = kernel.linear.withUnsafeBufferPointer { linear in
                kernel.matrix.withUnsafeBufferPointer { matrix in
                    outputCurve.withUnsafeBufferPointer { output in
                        wi_matrix_shaper_convert(widest.cKernel, linear.baseAddress, matrix.baseAddress,
                                                 output.baseAddress, source, destination, count)
                    }
                }
            }
        }
        if done < count {
            convertScalar(source + done * 4, into: destination + done * 4, count: count - done)
        }
    }

    private func convertScalar(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>,
                               count: Int) {
        contributions.withUnsafeBufferPointer { table in
            outputCurve.withUnsafeBufferPointer { output in
                guard let table = table.baseAddress, let output = output.baseAddress else { return }
                let rounding = SIMD4<Int32>(repeating: 1 << (Int32(Self.fractionBits) - 1))
                let top = Int32(Self.outputTableSize - 1)
                var offset = 0
                let end = count * 4
                while offset < end {
                    let sum = table[Int(source[offset])] &+ table[256 &+ Int(source[offset + 1])]
                        &+ table[512 &+ Int(source[offset + 2])] &+ rounding
                    // Clipped into the table's range: out-of-gamut colours lose what does not fit, per channel.
                    let linear = sum &>> Int32(Self.fractionBits)
                    let alpha = source[offset + 3]
                    destination[offset] = output[Int(min(max(linear.x, 0), top))]
                    destination[offset + 1] = output[Int(min(max(linear.y, 0), top))]
                    destination[offset + 2] = output[Int(min(max(linear.z, 0), top))]
                    destination[offset + 3] = alpha
                    offset &+= 4
                }
            }
        }
    }

    /// The colorants as the columns of a row-major 3×3 matrix.
    static func columns(_ colorants: [SIMD3<Double>]) -> [Double] {
        [colorants[0].x, colorants[1].x, colorants[2].x,
         colorants[0].y, colorants[1].y, colorants[2].y,
         colorants[0].z, colorants[1].z, colorants[2].z]
    }

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { index in
            let row = index / 3, column = index % 3
            return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
        }
    }

    static func inverse(_ m: [Double]) -> [Double]? {
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
