/// Writes animated PNG files from composited frames.
///
/// libspng compresses every frame as a standalone PNG of the whole canvas — 8-bit RGBA, or RGB when no frame has
/// a transparent pixel (all frames share one IHDR) — and its IDAT data is re-wrapped: the first frame's stays in
/// IDAT chunks, so the default image is the first frame and viewers without APNG support show it; every later
/// frame's goes into fdAT chunks. Each frame gets an fcTL covering the canvas with dispose op none and blend op
/// source (each frame is complete in itself), and its duration as the delay; acTL holds the frame count and the
/// loop count.
enum APNGEncoder {
    /// How many frames an acTL chunk can declare.
    static let mostFrames = Int(UInt32.max)

    static func encode(_ frames: [ImageFrame], loopCount: Int) throws -> [UInt8] {
        guard let size = frames.first?.pixels.size else {
            throw ImageError(.badImageData, "APNG: an animation needs frames")
        }
        guard frames.count <= mostFrames else {
            throw ImageError(.imageTooLarge, "APNG: \(frames.count) frames are more than acTL can count")
        }
        let withAlpha = frames.contains { $0.pixels.containsTransparency }
        var output = PNGChunkWriter()
        var sequenceNumber: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            guard frame.pixels.size == size else {
                throw ImageError(.badImageData, "APNG: frame \(index) is \(frame.pixels.size), the canvas \(size)")
            }
            let png = try PNGEncoder.encodedBytes(frame.pixels, withAlpha: withAlpha)
            try png.withUnsafeBytes { png in
                let (header, data) = try Self.headerAndData(of: png)
                if index == 0 {
                    output.appendVerbatim(UnsafeRawBufferPointer(rebasing: png[header.whole]))
                    var animation: [UInt8] = []
                    animation.appendBigEndian(UInt32(frames.count))
                    animation.appendBigEndian(UInt32(clamping: max(loopCount, 0)))
                    output.append(.acTL, data: animation)
                }
                output.append(.fcTL, data: frameControl(sequenceNumber, size: size, duration: frame.duration))
                sequenceNumber += 1
                for chunk in data {
                    if index == 0 {
                        output.appendVerbatim(UnsafeRawBufferPointer(rebasing: png[chunk.whole]))
                    } else {
                        output.append(.fdAT, sequenceNumber: sequenceNumber,
                                      data: UnsafeRawBufferPointer(rebasing: png[chunk.data]))
                        sequenceNumber += 1
                    }
                }
            }
        }
        output.appendEnd()
        return output.bytes
    }

    /// A frame's delay as the fraction fcTL stores: milliseconds when they fit in 16 bits, else coarser units.
    /// A duration that is not a positive number is stored as the 100 ms players would show it for anyway.
    static func delay(_ seconds: Double) -> (numerator: UInt16, denominator: UInt16) {
        guard seconds.isFinite, seconds > 0 else { return (100, 1000) }
        for denominator in [1000.0, 100, 10, 1] {
            let numerator = (seconds * denominator).rounded()
            if numerator <= Double(UInt16.max) { return (UInt16(max(numerator, 1)), UInt16(denominator)) }
        }
        return (UInt16.max, 1)
    }

    /// The IHDR chunk and the IDAT chunks of a PNG libspng just wrote.
    private static func headerAndData(of png: UnsafeRawBufferPointer) throws -> (PNGChunk, [PNGChunk]) {
        var reader = try PNGChunkReader(png)
        var header: PNGChunk?
        var data: [PNGChunk] = []
        while !reader.isAtEnd {
            let chunk = try reader.next(verifyingChecksum: false)
            if chunk.type == .IHDR { header = chunk }
            if chunk.type == .IDAT { data.append(chunk) }
        }
        guard let header, !data.isEmpty else {
            throw ImageError(.badImageData, "APNG: libspng wrote a PNG without IHDR or IDAT")
        }
        return (header, data)
    }

    /// The data of an fcTL chunk for a whole-canvas frame: dispose op none, blend op source.
    private static func frameControl(_ sequenceNumber: UInt32, size: PixelSize, duration: Double) -> [UInt8] {
        var data: [UInt8] = []
        data.appendBigEndian(sequenceNumber)
        data.appendBigEndian(UInt32(size.width))
        data.appendBigEndian(UInt32(size.height))
        data.appendBigEndian(UInt32(0))
        data.appendBigEndian(UInt32(0))
        let delay = delay(duration)
        data.appendBigEndian(delay.numerator)
        data.appendBigEndian(delay.denominator)
        data.append(APNGDisposal.none.rawValue)
        data.append(APNGBlend.source.rawValue)
        return data
    }
}
