import CWebP

/// Decodes an animated WebP through libwebp's WebPAnimDecoder, which composites each frame onto the canvas
/// (blending and disposal) and hands back whole canvases.
///
/// The canvas size and frame count are read by the demuxer and checked against ``DecodeOptions/limits`` before
/// the animation decoder allocates its canvas. ``DecodeOptions/frameIndex`` stops after that frame and returns it
/// alone, as a still. A corrupt or truncated frame fails the whole decode with
/// `ImageError.Code.badImageData`, unless the decode is lenient: then the frames before it are kept and the
/// error is returned beside them.
enum WebPAnimationDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws -> Image {
        try decodeFrames(bytes, options: options, lenient: false).image
    }

    /// Decodes every frame; when `lenient`, a frame that fails to decode ends the animation before it (at least
    /// one frame must decode) and its error is returned.
    static func decodeFrames(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, lenient: Bool) throws
        -> CompleteFrames
    {
        guard let base = bytes.baseAddress else { throw ImageError(.badImageData, "WebP: the data is empty") }
        let container = try WebPContainer(bytes)
        let canvas = container.canvasSize
        try options.limits.check(canvas)
        let available = container.frameCount
        guard available > 0 else { throw ImageError(.badImageData, "WebP: the animation has no frames") }
        if let index = options.frameIndex, index >= available {
            throw ImageError(.invalidParameter, "WebP: frame \(index) asked, the animation has \(available)")
        }
        // One frame picked by index still has every frame before it composited (libwebp blends in order); only it
        // is copied out.
        let pickedFrame = options.frameIndex
        let frameCount = pickedFrame.map { $0 + 1 } ?? (options.firstFrameOnly ? 1 : available)
        try options.limits.check(frameCount: frameCount, canvas: canvas)
        let orientation = container.exifOrientation ?? .up

        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw ImageError(.unsupportedFormat, "WebP: the libwebp demux library does not match its headers")
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&data, &decoderOptions) else {
            throw ImageError(.badImageData, "WebP: the animation cannot be decoded")
        }
        defer { WebPAnimDecoderDelete(decoder) }

        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        var previousTimestamp: Int32 = 0
        var reduced = false
        var stopReason: ImageError?
        let canvasBytes = canvas.width * canvas.height * PixelBuffer.bytesPerPixel
        for index in 0..<frameCount {
            var canvasPixels: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvasPixels, &timestamp) != 0, let canvasPixels else {
                let error = ImageError(
                    .badImageData, "WebP: frame \(index + 1) of \(available) is corrupt or truncated")
                guard lenient, !frames.isEmpty else { throw error }
                stopReason = error
                break
            }
            if let pickedFrame, index < pickedFrame { continue }
            // The decoder owns the canvas and reuses it for the next frame: copy it out.
            let pixels = try PixelBuffer(width: canvas.width, height: canvas.height) { output in
                output.copyMemory(from: UnsafeRawBufferPointer(start: canvasPixels, count: canvasBytes))
            }
            let finished = try options.finish(pixels, sourceSize: canvas, orientation: orientation)
            reduced = reduced || finished.reduced
            let milliseconds = Int(timestamp) - Int(previousTimestamp)
            previousTimestamp = timestamp
            frames.append(ImageFrame(pixels: finished.pixels, duration: duration(milliseconds: milliseconds)))
        }

        // Alpha from the frame headers, not the pixels, so that ``WebPCoder/properties(of:)`` says the same.
        let hasAlpha = container.mayShowTransparency(frames: container.frameHeaders)
        var flags: Image.Flags = hasAlpha ? .hasAlpha : []
        if reduced { flags.insert(.thumbnail) }
        if pickedFrame != nil, !frames.isEmpty { frames[0].duration = 0 }  // one frame out of an animation: a still
        let image = Image(frames: frames, loopCount: pickedFrame != nil ? 1 : container.loopCount,
                          format: .webp, scale: options.resolvedScale, orientation: orientation, flags: flags)
        return CompleteFrames(image: image, error: stopReason)
    }

    /// A frame's display time in seconds from its duration in milliseconds: 10 ms or less plays as 100 ms
    /// (``FrameDuration``), since many files say 0 and mean "the default speed".
    static func duration(milliseconds: Int) -> Double {
        FrameDuration.playable(seconds: Double(milliseconds) / 1000)
    }
}
