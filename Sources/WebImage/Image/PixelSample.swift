/// The sample type of a bitmap's channels: `UInt8` for ``PixelBuffer``, `UInt16` for ``DeepPixelBuffer``.
///
/// The filters (the resampler, the blur, the free-angle rotation) are written once over it: how a bitmap is
/// split into passes, which rows are read, where scratch memory comes from, when alpha is premultiplied. What a
/// depth supplies is only its arithmetic: its alpha premultiplication, the rotation's interpolation and the inner
/// loops of the two resampling passes (8-bit samples in fixed point, which the optimiser maps to `pmaddwd`;
/// 16-bit ones in floating point, where fixed point would overflow 32 bits). (`Codable` only because the SIMD
/// vectors of a protocol-constrained scalar require it of the protocol.)
protocol PixelSample: FixedWidthInteger, UnsignedInteger, SIMDScalar, Codable, Sendable {
    /// Straight → premultiplied alpha for `pixels` pixels, rounded to nearest. `source` may equal `destination`.
    static func premultiply(_ source: UnsafePointer<Self>, into destination: UnsafeMutablePointer<Self>, pixels: Int)

    /// Premultiplied → straight alpha in place for `pixels` pixels; colour above its alpha saturates.
    static func unpremultiply(_ samples: UnsafeMutablePointer<Self>, pixels: Int)

    /// Resamples `rows` of `input` along x; output row `y` goes to `output + (y - rows.lowerBound) * rowStride`.
    static func resampleAlongX(_ input: ResamplingPlane<Self>, rows: Range<Int>, weights: ResamplingWeights,
                               into output: UnsafeMutablePointer<Self>, rowStride: Int)

    /// Resamples `columns` of `input` along y; output row `y` holds the columns from `columns.lowerBound` on.
    static func resampleAlongY(_ input: ResamplingPlane<Self>, columns: Range<Int>, weights: ResamplingWeights,
                               into output: UnsafeMutablePointer<Self>, rowStride: Int)

    /// The pixel between the one at `topLeft`, its right neighbour and the two below (a row is `rowStride`
    /// samples), `fractionX` and `fractionY` of the way (out of 2³²): the free-angle rotation's sample.
    static func interpolated(_ topLeft: UnsafePointer<Self>, rowStride: Int, fractionX: UInt32,
                             fractionY: UInt32) -> SIMD4<Self>
}

/// The 8-bit arithmetic: the resampling passes in `ResamplingPasses.swift`, the interpolation beside the
/// rotation, premultiplication where the coders find it.
extension UInt8: PixelSample {
    static func premultiply(_ source: UnsafePointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>,
                            pixels: Int) {
        AlphaPremultiplication.premultiply(source, into: destination, pixels: pixels)
    }

    static func unpremultiply(_ samples: UnsafeMutablePointer<UInt8>, pixels: Int) {
        AlphaPremultiplication.unpremultiply(samples, pixels: pixels)
    }
}

/// The 16-bit arithmetic: the resampling passes in `DeepResamplingPasses.swift`, premultiplication beside the
/// 8-bit one, the interpolation beside the rotation.
extension UInt16: PixelSample {}

/// A read-only view of RGBA rows where row `firstRow` and column `firstColumn` sit at `base`: lets a pass
/// address a band or strip of a bitmap with the bitmap's own coordinates. `rowStride` counts samples (for 8-bit
/// rows, bytes).
struct ResamplingPlane<Sample: PixelSample> {
    let base: UnsafePointer<Sample>
    let rowStride: Int
    let firstRow: Int
    let firstColumn: Int

    /// The first sample of row `y` at column `firstColumn`.
    @inline(__always)
    func row(_ y: Int) -> UnsafePointer<Sample> { base + (y - firstRow) * rowStride }

    /// The first sample of pixel (`x`, `y`).
    @inline(__always)
    func pixel(_ x: Int, _ y: Int) -> UnsafePointer<Sample> { row(y) + (x - firstColumn) * 4 }
}

/// Floats within 0...2²² rounded to the nearest integers and narrowed to samples. Adding 1.5 × 2²³ leaves the
/// rounded integer in the low bits of the float's pattern: cheaper than a float-to-integer conversion, which the
/// generic SIMD conversions make one lane at a time. Callers clamp values that may leave the sample's range.
@inline(__always)
func roundedSamples<Sample: PixelSample>(_ values: SIMD4<Float>) -> SIMD4<Sample> {
    SIMD4<Sample>(truncatingIfNeeded: unsafeBitCast(values + SIMD4(repeating: 12_582_912), to: SIMD4<UInt32>.self))
}

/// ``roundedSamples(_:)-(SIMD4<Float>)`` for eight floats.
@inline(__always)
func roundedSamples<Sample: PixelSample>(_ values: SIMD8<Float>) -> SIMD8<Sample> {
    SIMD8<Sample>(truncatingIfNeeded: unsafeBitCast(values + SIMD8(repeating: 12_582_912), to: SIMD8<UInt32>.self))
}

/// ``roundedSamples(_:)-(SIMD4<Float>)`` for sixteen floats.
@inline(__always)
func roundedSamples<Sample: PixelSample>(_ values: SIMD16<Float>) -> SIMD16<Sample> {
    SIMD16<Sample>(truncatingIfNeeded: unsafeBitCast(values + SIMD16(repeating: 12_582_912),
                                                     to: SIMD16<UInt32>.self))
}
