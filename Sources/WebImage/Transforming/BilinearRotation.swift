#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PixelBuffer {
    /// These pixels turned `radians` counter-clockwise about their centre and sampled bilinearly onto a
    /// transparent canvas of `canvas` whose centre is the source's centre.
    ///
    /// The source is first copied premultiplied into a buffer with a one-pixel transparent frame, so a sample
    /// that straddles the image's edge blends with transparency (anti-aliased edges, no dark fringe) and the
    /// inner loop needs one range check per pixel. Coordinates step in 32.32 fixed point; the four channels of
    /// a pixel are interpolated at once in 16-bit lanes of a `UInt64`.
    func rotated(byRadians radians: Double, onto canvas: PixelSize, hasAlpha: Bool) throws -> PixelBuffer {
        let paddedWidth = width + 2, paddedHeight = height + 2
        guard let block = PixelMemoryPool.shared.allocate(byteCount: paddedWidth * paddedHeight * 4) else {
            throw ImageError(.imageTooLarge, "cannot allocate a rotation buffer for \(size)")
        }
        defer { PixelMemoryPool.shared.recycle(block.pointer, capacity: block.capacity) }
        let padded = block.pointer.assumingMemoryBound(to: UInt32.self)
        withUnsafeBytes { source in
            let sourceBytes = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
            padded.update(repeating: 0, count: paddedWidth)
            (padded + (paddedHeight - 1) * paddedWidth).update(repeating: 0, count: paddedWidth)
            for y in 0..<height {
                let row = padded + (y + 1) * paddedWidth
                row[0] = 0
                row[width + 1] = 0
                let destination = UnsafeMutableRawPointer(row + 1).assumingMemoryBound(to: UInt8.self)
                if hasAlpha {
                    AlphaPremultiplication.premultiply(sourceBytes + y * bytesPerRow, into: destination, pixels: width)
                } else {
                    destination.update(from: sourceBytes + y * bytesPerRow, count: bytesPerRow)
                }
            }
        }

        let steps = RotationSteps(radians: radians, source: size, canvas: canvas)
        let lastU = UInt(width), lastV = UInt(height)
        let result = try PixelBuffer(width: canvas.width, height: canvas.height) { output in
            var destination = output.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<canvas.height {
                var (fixedU, fixedV) = steps.rowStart(y)
                for _ in 0..<canvas.width {
                    let column = Int(truncatingIfNeeded: fixedU >> 32), row = Int(truncatingIfNeeded: fixedV >> 32)
                    if UInt(bitPattern: column) <= lastU && UInt(bitPattern: row) <= lastV {
                        let fractionX = UInt64(truncatingIfNeeded: fixedU >> 24) & 0xFF
                        let fractionY = UInt64(truncatingIfNeeded: fixedV >> 24) & 0xFF
                        let topLeft = padded + row * paddedWidth + column
                        let top = Self.lerp(topLeft[0], topLeft[1], fractionX)
                        let bottom = Self.lerp(topLeft[paddedWidth], topLeft[paddedWidth + 1], fractionX)
                        destination.pointee = Self.pack(Self.lerpLanes(top, bottom, fractionY))
                    } else {
                        destination.pointee = 0
                    }
                    destination += 1
                    fixedU &+= steps.stepU
                    fixedV &+= steps.stepV
                }
            }
            AlphaPremultiplication.unpremultiply(output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                 pixels: canvas.width * canvas.height)
        }
        return result
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

    /// Interpolates two pixels channel by channel, `fraction` out of 256 towards `b`.
    @inline(__always)
    private static func lerp(_ a: UInt32, _ b: UInt32, _ fraction: UInt64) -> UInt64 {
        lerpLanes(spread(a), spread(b), fraction)
    }

    /// Interpolates spread lanes, rounding to nearest; every lane stays below 2^16, so none carries.
    @inline(__always)
    private static func lerpLanes(_ a: UInt64, _ b: UInt64, _ fraction: UInt64) -> UInt64 {
        ((a &* (256 - fraction) &+ b &* fraction &+ laneHalf) >> 8) & laneMask
    }
}

extension DeepPixelBuffer {
    /// These pixels turned as ``PixelBuffer``'s bilinear rotation turns them (the same canvas, the same source
    /// positions, the same transparent one-pixel frame around the source), interpolated in floating point on
    /// premultiplied samples, so the result keeps 16 bits.
    func rotated(byRadians radians: Double, onto canvas: PixelSize) throws -> DeepPixelBuffer {
        let paddedWidth = width + 2
        var padded = [SIMD4<Float>](repeating: .zero, count: paddedWidth * (height + 2))
        var line = [SIMD4<Float>](repeating: .zero, count: width)
        for y in 0..<height {
            premultipliedRow(y, into: &line)
            for x in 0..<width { padded[(y + 1) * paddedWidth + x + 1] = line[x] }
        }
        let steps = RotationSteps(radians: radians, source: size, canvas: canvas)
        let lastU = UInt(width), lastV = UInt(height), fraction: Float = 1 / 4_294_967_296
        return try sameDepth(canvas) { output in
            try padded.withUnsafeBufferPointer { padded in
                var index = 0
                for y in 0..<canvas.height {
                    try WorkBudget.checkpoint()
                    var (fixedU, fixedV) = steps.rowStart(y)
                    for _ in 0..<canvas.width {
                        let column = Int(truncatingIfNeeded: fixedU >> 32), row = Int(truncatingIfNeeded: fixedV >> 32)
                        var pixel = SIMD4<UInt16>.zero
                        if UInt(bitPattern: column) <= lastU && UInt(bitPattern: row) <= lastV {
                            let fractionX = Float(UInt32(truncatingIfNeeded: fixedU)) * fraction
                            let fractionY = Float(UInt32(truncatingIfNeeded: fixedV)) * fraction
                            let topLeft = row * paddedWidth + column
                            let top = padded[topLeft] + (padded[topLeft + 1] - padded[topLeft]) * fractionX
                            let bottomLeft = topLeft + paddedWidth
                            let bottom = padded[bottomLeft] + (padded[bottomLeft + 1] - padded[bottomLeft]) * fractionX
                            pixel = Self.samples(ofPremultiplied: top + (bottom - top) * fractionY)
                        }
                        for channel in 0..<4 { output[index + channel] = pixel[channel] }
                        index += 4
                        fixedU &+= steps.stepU
                        fixedV &+= steps.stepV
                    }
                }
            }
        }
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
