#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PixelBuffer {
    /// These pixels turned `radians` counter-clockwise about their centre and sampled bilinearly onto a
    /// transparent canvas of `canvas` whose centre is the source's centre (``BilinearRotation``).
    func rotated(byRadians radians: Double, onto canvas: PixelSize, hasAlpha: Bool) throws -> PixelBuffer {
        try withUnsafeBytes { source in
            try PixelBuffer(width: canvas.width, height: canvas.height) { output in
                try BilinearRotation.rotate(source.bindMemory(to: UInt8.self).baseAddress!, size: size,
                                            byRadians: radians, premultiplied: hasAlpha,
                                            into: output.bindMemory(to: UInt8.self).baseAddress!, canvas: canvas)
            }
        }
    }
}

extension DeepPixelBuffer {
    /// These pixels turned as ``PixelBuffer``'s are, in 16-bit samples.
    func rotated(byRadians radians: Double, onto canvas: PixelSize) throws -> DeepPixelBuffer {
        let premultiplied = containsTransparency
        return try withUnsafeSamples { source in
            try sameDepth(canvas) { output in
                try BilinearRotation.rotate(source.baseAddress!, size: size, byRadians: radians,
                                            premultiplied: premultiplied, into: output.baseAddress!, canvas: canvas)
            }
        }
    }
}

/// The free-angle rotation, once for both depths.
///
/// The source is first copied premultiplied into a buffer with a one-pixel transparent frame, so a sample that
/// straddles the image's edge blends with transparency (anti-aliased edges, no dark fringe) and the inner loop
/// needs one range check per pixel. Coordinates step in 32.32 fixed point (``RotationSteps``); each depth
/// interpolates its own way (8-bit samples in 16-bit lanes of one integer, 16-bit ones in floating point).
enum BilinearRotation {
    /// Turns the `size` bitmap at `source` by `radians` onto the `canvas` bitmap at `output`. `premultiplied`
    /// says the source has transparency to premultiply; the output is always turned back to straight alpha
    /// (its corners are transparent).
    static func rotate<Sample: PixelSample>(
        _ source: UnsafePointer<Sample>, size: PixelSize, byRadians radians: Double, premultiplied: Bool,
        into output: UnsafeMutablePointer<Sample>, canvas: PixelSize
    ) throws {
        let width = size.width, height = size.height
        let paddedStride = (width + 2) * 4, paddedHeight = height + 2
        let padded = try ScratchSamples<Sample>(count: paddedStride * paddedHeight,
                                                for: "a rotation buffer for \(size)")
        defer { padded.release() }
        padded.base.update(repeating: 0, count: paddedStride)
        (padded.base + (paddedHeight - 1) * paddedStride).update(repeating: 0, count: paddedStride)
        for y in 0..<height {
            let row = padded.base + (y + 1) * paddedStride
            row.update(repeating: 0, count: 4)
            (row + (width + 1) * 4).update(repeating: 0, count: 4)
            if premultiplied {
                Sample.premultiply(source + y * width * 4, into: row + 4, pixels: width)
            } else {
                (row + 4).update(from: source + y * width * 4, count: width * 4)
            }
        }
        let steps = RotationSteps(radians: radians, source: size, canvas: canvas)
        let lastU = UInt(width), lastV = UInt(height)
        var destination = UnsafeMutableRawPointer(output)
        let pixelBytes = 4 * MemoryLayout<Sample>.stride
        for y in 0..<canvas.height {
            if WorkBudget.shouldStop() { break }  // the checkpoint below throws
            var (fixedU, fixedV) = steps.rowStart(y)
            for _ in 0..<canvas.width {
                let column = Int(truncatingIfNeeded: fixedU >> 32), row = Int(truncatingIfNeeded: fixedV >> 32)
                var pixel = SIMD4<Sample>.zero
                if UInt(bitPattern: column) <= lastU && UInt(bitPattern: row) <= lastV {
                    pixel = Sample.interpolated(padded.base + row * paddedStride + column * 4, rowStride: paddedStride,
                                                fractionX: UInt32(truncatingIfNeeded: fixedU),
                                                fractionY: UInt32(truncatingIfNeeded: fixedV))
                }
                destination.storeBytes(of: pixel, as: SIMD4<Sample>.self)
                destination += pixelBytes
                fixedU &+= steps.stepU
                fixedV &+= steps.stepV
            }
        }
        try WorkBudget.checkpoint()
        Sample.unpremultiply(output, pixels: canvas.area)
    }
}

extension UInt8 {
    /// The pixel between `topLeft`, its right neighbour and the two below, `fractionX` and `fractionY` (out of
    /// 2³²) of the way: the four channels at once in 16-bit lanes of a `UInt64`, to eight bits of fraction.
    @inline(__always)
    static func interpolated(_ topLeft: UnsafePointer<UInt8>, rowStride: Int, fractionX: UInt32,
                             fractionY: UInt32) -> SIMD4<UInt8> {
        let pixels = UnsafeRawPointer(topLeft)
        let x = UInt64(fractionX >> 24), y = UInt64(fractionY >> 24)
        let top = lerp(spread(pixels.loadUnaligned(as: UInt32.self)),
                       spread(pixels.loadUnaligned(fromByteOffset: 4, as: UInt32.self)), x)
        let bottom = lerp(spread(pixels.loadUnaligned(fromByteOffset: rowStride, as: UInt32.self)),
                          spread(pixels.loadUnaligned(fromByteOffset: rowStride + 4, as: UInt32.self)), x)
        return unsafeBitCast(pack(lerp(top, bottom, y)), to: SIMD4<UInt8>.self)
    }

    private static let laneMask: UInt64 = 0x00FF_00FF_00FF_00FF
    private static let laneHalf: UInt64 = 0x0080_0080_0080_0080

    /// Spreads the four bytes of a pixel into the low bytes of four 16-bit lanes.
    @inline(__always)
    private static func spread(_ pixel: UInt32) -> UInt64 {
        let wide = UInt64(pixel)
        return (wide | (wide << 24)) & laneMask
    }

    /// The inverse of ``spread(_:)``.
    @inline(__always)
    private static func pack(_ lanes: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: (lanes | (lanes >> 24)) & 0xFFFF_FFFF)
    }

    /// Interpolates spread lanes, `fraction` out of 256 towards `b`, rounding to nearest; every lane stays below
    /// 2¹⁶, so none carries.
    @inline(__always)
    private static func lerp(_ a: UInt64, _ b: UInt64, _ fraction: UInt64) -> UInt64 {
        ((a &* (256 - fraction) &+ b &* fraction &+ laneHalf) >> 8) & laneMask
    }
}

extension UInt16 {
    /// The pixel between `topLeft`, its right neighbour and the two below, `fractionX` and `fractionY` (out of
    /// 2³²) of the way, interpolated in floating point and rounded to the nearest samples.
    @inline(__always)
    static func interpolated(_ topLeft: UnsafePointer<UInt16>, rowStride: Int, fractionX: UInt32,
                             fractionY: UInt32) -> SIMD4<UInt16> {
        func pixel(_ offset: Int) -> SIMD4<Float> {
            SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(topLeft + offset)
                .loadUnaligned(as: SIMD4<UInt16>.self)))
        }
        let one: Float = 1 / 4_294_967_296
        let x = Float(fractionX) * one, y = Float(fractionY) * one
        let top = pixel(0) + (pixel(4) - pixel(0)) * x
        let bottom = pixel(rowStride) + (pixel(rowStride + 4) - pixel(rowStride)) * x
        let value = (top + (bottom - top) * y).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 65535))
        return roundedSamples(value)
    }
}

/// Where a canvas's pixel centres fall in a source turned about its centre onto the canvas's centre, in the
/// coordinates of the source with a one-pixel frame around it, in 32.32 fixed point: a row's first pixel, and the
/// step from one pixel to the next. Both depths' rotations walk these same positions.
struct RotationSteps {
    /// The step along a canvas row.
    let stepU: Int64, stepV: Int64
    private let cosine: Double, sine: Double
    private let source: PixelSize, canvas: PixelSize
    private static let one = Double(1 << 32)

    init(radians: Double, source: PixelSize, canvas: PixelSize) {
        cosine = cos(radians)
        sine = sin(radians)
        self.source = source
        self.canvas = canvas
        stepU = Int64((cosine * Self.one).rounded())
        stepV = Int64((sine * Self.one).rounded())
    }

    /// The source position of the centre of row `y`'s first pixel.
    func rowStart(_ y: Int) -> (u: Int64, v: Int64) {
        let firstX = 0.5 - Double(canvas.width) / 2
        let dy = Double(y) + 0.5 - Double(canvas.height) / 2
        let u = Double(source.width) / 2 + firstX * cosine - dy * sine + 0.5
        let v = Double(source.height) / 2 + firstX * sine + dy * cosine + 0.5
        return (Int64((u * Self.one).rounded(.down)), Int64((v * Self.one).rounded(.down)))
    }
}
