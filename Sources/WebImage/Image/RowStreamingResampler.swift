/// Shrinks an image whose rows arrive one at a time, so that a thumbnail never needs the full-size bitmap.
///
/// Each row is resampled along x as it arrives, into a band `outputWidth` pixels wide and as tall as the source;
/// ``finish()`` resamples that band along y. For a 4K frame to 256 pixels the band is 2.2 MB where the full
/// bitmap is 33 MB. Rows may arrive in any order (interlaced GIF), each exactly once.
///
/// The result equals ``PixelBuffer/resized(to:filter:)`` run horizontal pass first, as it does when the two
/// axes shrink alike: rows holding transparency are premultiplied before filtering, and the output is turned
/// back to straight alpha when any row had some (premultiplying an opaque pixel changes nothing).
final class RowStreamingResampler {
    let sourceSize: PixelSize
    let outputSize: PixelSize
    private let horizontal: ResamplingWeights?
    private let vertical: ResamplingWeights?
    private let band: (pointer: UnsafeMutableRawPointer, capacity: Int)
    private var sawTransparency = false
    private var rowsAdded = 0

    /// Prepares to shrink (or keep) a `sourceSize` image to `outputSize` with `filter`. Throws like
    /// ``PixelBuffer/resized(to:filter:)`` for sizes the filters refuse.
    init(sourceSize: PixelSize, outputSize: PixelSize, filter: ResamplingFilter) throws {
        guard outputSize.width > 0, outputSize.height > 0 else {
            throw ImageError(.badImageData, "cannot resize to \(outputSize)")
        }
        try PixelBuffer.checkFilterable(sourceSize)
        try PixelBuffer.checkFilterable(outputSize)
        self.sourceSize = sourceSize
        self.outputSize = outputSize
        horizontal = outputSize.width == sourceSize.width
            ? nil : ResamplingWeights(sourceLength: sourceSize.width, outputLength: outputSize.width, filter: filter)
        vertical = outputSize.height == sourceSize.height
            ? nil : ResamplingWeights(sourceLength: sourceSize.height, outputLength: outputSize.height, filter: filter)
        guard let band = PixelMemoryPool.shared.allocate(byteCount: outputSize.width * 4 * sourceSize.height) else {
            throw ImageError(.imageTooLarge, "cannot allocate a \(outputSize.width)x\(sourceSize.height) band")
        }
        self.band = band
    }

    deinit { PixelMemoryPool.shared.recycle(band.pointer, capacity: band.capacity) }

    /// Takes source row `y`: `sourceSize.width` RGBA8 pixels at `pixels`, which this may overwrite.
    func add(row y: Int, pixels: UnsafeMutablePointer<UInt8>) {
        precondition((0..<sourceSize.height).contains(y), "row \(y) is outside the source")
        rowsAdded += 1
        if PixelBuffer.containsTransparency(UnsafeRawBufferPointer(start: pixels, count: sourceSize.width * 4)) {
            sawTransparency = true
            AlphaPremultiplication.premultiply(pixels, into: pixels, pixels: sourceSize.width)
        }
        let bandRowBytes = outputSize.width * 4
        let destination = band.pointer.assumingMemoryBound(to: UInt8.self) + y * bandRowBytes
        guard let horizontal else {
            destination.update(from: pixels, count: bandRowBytes)
            return
        }
        let input = ResamplingPlane(base: UnsafePointer(pixels), rowStride: sourceSize.width * 4, firstRow: y,
                                    firstColumn: 0)
        UInt8.resampleAlongX(input, rows: y..<y + 1, weights: horizontal, into: destination,
                             rowStride: bandRowBytes)
    }

    /// The shrunk image, once every source row was added.
    func finish() throws -> PixelBuffer {
        guard rowsAdded == sourceSize.height else {
            throw ImageError(.badImageData, "\(rowsAdded) of \(sourceSize.height) rows arrived")
        }
        let bandRowBytes = outputSize.width * 4
        let band = UnsafePointer(self.band.pointer.assumingMemoryBound(to: UInt8.self))
        return try PixelBuffer(width: outputSize.width, height: outputSize.height) { outputBytes in
            let output = outputBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if let vertical {
                let plane = ResamplingPlane(base: band, rowStride: bandRowBytes, firstRow: 0, firstColumn: 0)
                UInt8.resampleAlongY(plane, columns: 0..<outputSize.width, weights: vertical, into: output,
                                     rowStride: bandRowBytes)
            } else {
                output.update(from: band, count: outputBytes.count)
            }
            if sawTransparency { AlphaPremultiplication.unpremultiply(output, pixels: outputSize.area) }
        }
    }
}
