/// Undoes PNG's five row filters (PNG specification §9) for 8-bit samples, in place.
///
/// Sub, Average and Paeth depend on the pixel to the left, so they run a pixel at a time; each pixel's bytes
/// are one `SIMD4<Int16>`, which turns Paeth's three distances and two choices into a handful of vector
/// instructions with no branches. `row` and `above` must each have one readable byte past `count` (a 3-byte
/// pixel is loaded as four); only `count` bytes of `row` are written.
enum PNGUnfilter {
    static func unfilter(type: UInt8, row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
                         pixelBytes: Int, rowNumber: Int) throws {
        switch type {
        case 0: return
        case 1: byPixel(row, above, count, pixelBytes) { left, _, _ in left }
        case 2: for index in 0..<count { row[index] &+= above[index] }
        case 3: byPixel(row, above, count, pixelBytes) { left, up, _ in (left &+ up) &>> 1 }
        case 4: byPixel(row, above, count, pixelBytes, predict: paeth)
        default:
            throw ImageError(.badImageData, "PNG: row \(rowNumber) has filter type \(type), which PNG does not define")
        }
    }

    /// The Paeth predictor of every lane: whichever of left, up and upper-left is nearest to left + up − upper-left,
    /// ties going to left, then up.
    @inline(__always)
    static func paeth(_ left: SIMD4<Int16>, _ up: SIMD4<Int16>, _ upperLeft: SIMD4<Int16>) -> SIMD4<Int16> {
        let toLeft = magnitude(up &- upperLeft)  // |estimate − left|
        let toUp = magnitude(left &- upperLeft)  // |estimate − up|
        let toUpperLeft = magnitude(left &+ up &- upperLeft &- upperLeft)
        var prediction = upperLeft
        prediction.replace(with: up, where: toUp .<= toUpperLeft)
        prediction.replace(with: left, where: (toLeft .<= toUp) .& (toLeft .<= toUpperLeft))
        return prediction
    }

    /// |value| by sign mask (`pointwiseMax` is generic and was not inlined here: 4% of a PNG decode as a call).
    @inline(__always)
    private static func magnitude(_ value: SIMD4<Int16>) -> SIMD4<Int16> {
        let sign = value &>> 15
        return (value ^ sign) &- sign
    }

    /// Adds `predict(left, up, upperLeft)` to each pixel of `row`, left to right (pixels of 3 or 4 bytes).
    @inline(__always)
    private static func byPixel(
        _ row: UnsafeMutablePointer<UInt8>, _ above: UnsafePointer<UInt8>, _ count: Int, _ pixelBytes: Int,
        predict: (SIMD4<Int16>, SIMD4<Int16>, SIMD4<Int16>) -> SIMD4<Int16>
    ) {
        let raw = UnsafeMutableRawPointer(row), up = UnsafeRawPointer(above)
        var left = SIMD4<Int16>.zero, upperLeft = SIMD4<Int16>.zero
        var offset = 0
        if pixelBytes == 4 {
            while offset < count {
                let value = SIMD4<Int16>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                let above = SIMD4<Int16>(truncatingIfNeeded: up.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                left = (value &+ predict(left, above, upperLeft)) & 0xFF
                raw.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: left), toByteOffset: offset, as: SIMD4<UInt8>.self)
                upperLeft = above
                offset &+= 4
            }
        } else {
            while offset < count {
                let value = SIMD4<Int16>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                let above = SIMD4<Int16>(truncatingIfNeeded: up.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                left = (value &+ predict(left, above, upperLeft)) & 0xFF
                // Three bytes only: the fourth lane is the next pixel's first byte, not yet unfiltered.
                row[offset] = UInt8(truncatingIfNeeded: left[0])
                row[offset &+ 1] = UInt8(truncatingIfNeeded: left[1])
                row[offset &+ 2] = UInt8(truncatingIfNeeded: left[2])
                upperLeft = above
                offset &+= 3
            }
        }
    }
}
