import CWebP

/// Composites animated WebP frames with the rules of libwebp's WebPAnimDecoder, so its pixels equal the eager
/// ``WebPCoder`` decode exactly:
///
/// - a key frame starts from a fully transparent canvas and is drawn without blending;
/// - otherwise the previous frame's disposal is applied first (its rectangle cleared to transparent when it was
///   disposed to the background), then the frame's bitstream is decoded over its rectangle;
/// - a blended frame's pixels that are not fully opaque are blended over what the canvas held, with libwebp's
///   integer approximation of straight-alpha "over" — except inside the rectangle the previous frame cleared,
///   where the frame's pixels are kept as decoded (libwebp skips blending over the cleared area).
///
/// The canvas is an array of packed RGBA (copy-on-write), so a copy of the cursor is a cheap snapshot.
struct WebPAnimationCursor: AnimationCursor {
    let source: WebPAnimationSource
    private(set) var nextFrameIndex: Int
    /// The canvas after frame `nextFrameIndex - 1`, before that frame's disposal (applied when the next frame
    /// begins). Pixels are R, G, B, A bytes in memory, read as little-endian words.
    private var canvas: [UInt32]

    init(source: WebPAnimationSource, nextFrameIndex: Int) {
        self.source = source
        self.nextFrameIndex = nextFrameIndex
        canvas = [UInt32](repeating: 0, count: source.canvasSize.area)
    }

    var heldByteCount: Int { canvas.count * MemoryLayout<UInt32>.stride }

    mutating func drawNextFrame() throws {
        let index = nextFrameIndex
        let records = source.records
        guard records.indices.contains(index) else {
            throw ImageError(.badImageData, "WebP: there is no frame \(index)")
        }
        let frame = records[index]
        let previous = index > 0 ? records[index - 1] : nil
        if frame.isKeyFrame {
            clear(PixelRect(x: 0, y: 0, width: source.canvasSize.width, height: source.canvasSize.height))
        } else if let previous, previous.disposesToBackground {
            clear(previous.rect)
        }
        let blends = frame.blends && !frame.isKeyFrame && index > 0
        try source.data.withUnsafeBytes { file in
            let payload = UnsafeRawBufferPointer(rebasing: file[frame.payload])
            if blends {
                var pixels = [UInt32](repeating: 0, count: frame.rect.width * frame.rect.height)
                try pixels.withUnsafeMutableBytes { output in
                    try Self.decode(
                        payload, frame: index, size: frame.rect.size, into: output, stride: frame.rect.width)
                }
                let cleared = previous.flatMap { $0.disposesToBackground ? $0.rect : nil }
                blend(pixels, in: frame.rect, keepingAsDecodedIn: cleared)
            } else {
                let width = source.canvasSize.width
                let start = frame.rect.y * width + frame.rect.x
                let end = (frame.rect.y + frame.rect.height - 1) * width + frame.rect.x + frame.rect.width
                try canvas.withUnsafeMutableBytes { whole in
                    let stride = MemoryLayout<UInt32>.stride
                    let region = UnsafeMutableRawBufferPointer(rebasing: whole[(start * stride)..<(end * stride)])
                    try Self.decode(payload, frame: index, size: frame.rect.size, into: region, stride: width)
                }
            }
        }
        nextFrameIndex = index + 1
    }

    func makePixels() throws -> PixelBuffer {
        let size = source.canvasSize
        let pixels = try PixelBuffer(width: size.width, height: size.height) { output in
            canvas.withUnsafeBytes { output.copyMemory(from: $0) }
        }
        return try source.decodeOptions.finish(pixels, sourceSize: size, orientation: source.orientation).pixels
    }

    /// Decodes one frame's bitstream into `output` (rows `stride` pixels apart) as straight RGBA, the way
    /// WebPAnimDecoder does (default decoder options, no threads).
    private static func decode(
        _ payload: UnsafeRawBufferPointer, frame index: Int, size: PixelSize,
        into output: UnsafeMutableRawBufferPointer, stride: Int
    ) throws {
        guard let input = payload.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let destination = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageError(.badImageData, "WebP: frame \(index + 1) is empty")
        }
        var features = WebPBitstreamFeatures()
        let header = WebPGetFeatures(input, payload.count, &features)
        guard header == VP8_STATUS_OK else { throw WebPStatus.error(header, action: "reading frame \(index + 1)") }
        guard Int(features.width) == size.width, Int(features.height) == size.height else {
            throw ImageError(.badImageData, "WebP: frame \(index + 1)'s bitstream does not match its rectangle")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageError(.unsupportedFormat, "WebP: the libwebp decoder library does not match its headers")
        }
        let bytesPerPixel = PixelBuffer.bytesPerPixel
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = destination
        config.output.u.RGBA.stride = Int32(stride * bytesPerPixel)
        config.output.u.RGBA.size = output.count
        let status = WebPDecode(input, payload.count, &config)
        WebPFreeDecBuffer(&config.output)  // frees nothing of ours: the memory is external
        guard status == VP8_STATUS_OK else { throw WebPStatus.error(status, action: "decoding frame \(index + 1)") }
    }

    private mutating func clear(_ rect: PixelRect) {
        let width = source.canvasSize.width
        canvas.withUnsafeMutableBufferPointer { pixels in
            for y in rect.y..<(rect.y + rect.height) {
                let start = y * width + rect.x
                pixels[start..<(start + rect.width)].update(repeating: 0)
            }
        }
    }

    /// Writes the decoded `pixels` of `rect` onto the canvas, blending those that are not opaque over the canvas,
    /// except inside `cleared` (the rectangle the previous frame cleared), where they are kept as decoded.
    private mutating func blend(_ pixels: [UInt32], in rect: PixelRect, keepingAsDecodedIn cleared: PixelRect?) {
        let width = source.canvasSize.width
        canvas.withUnsafeMutableBufferPointer { canvas in
            pixels.withUnsafeBufferPointer { pixels in
                for row in 0..<rect.height {
                    let y = rect.y + row
                    let rowIsCleared = cleared.map { y >= $0.y && y < $0.y + $0.height } ?? false
                    for column in 0..<rect.width {
                        let x = rect.x + column
                        let source = pixels[row * rect.width + column]
                        let target = y * width + x
                        if rowIsCleared, let cleared, x >= cleared.x, x < cleared.x + cleared.width {
                            canvas[target] = source
                        } else {
                            canvas[target] = Self.blend(source, over: canvas[target])
                        }
                    }
                }
            }
        }
    }

    /// libwebp's straight-alpha "over" in integers: an opaque source replaces the destination, a transparent one
    /// leaves it; otherwise the destination's weight is `dstA * (256 - srcA) >> 8`, the result's alpha is the sum of
    /// the weights, and each channel is the weighted sum times `2^24 / alpha`, shifted down by 24.
    static func blend(_ sourceWord: UInt32, over destinationWord: UInt32) -> UInt32 {
        let source = UInt32(littleEndian: sourceWord)
        let sourceAlpha = source >> 24
        if sourceAlpha == 0xFF { return sourceWord }
        if sourceAlpha == 0 { return destinationWord }
        let destination = UInt32(littleEndian: destinationWord)
        let destinationWeight = ((destination >> 24) * (256 - sourceAlpha)) >> 8
        let alpha = sourceAlpha + destinationWeight
        let scale = (UInt32(1) << 24) / alpha
        // The weighted sum is at most 255 * alpha, so times `scale` it stays below 2^32 (wrapping would not change
        // the result either: libwebp computes in 32 bits too).
        func channel(_ shift: UInt32) -> UInt32 {
            let sourcePart = ((source >> shift) & 0xFF) &* sourceAlpha
            let mixed = sourcePart &+ ((destination >> shift) & 0xFF) &* destinationWeight
            return ((mixed &* scale) >> 24) << shift
        }
        return (alpha << 24 | channel(16) | channel(8) | channel(0)).littleEndian
    }
}
