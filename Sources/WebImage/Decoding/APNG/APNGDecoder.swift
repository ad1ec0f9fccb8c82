/// Decodes animated PNG (APNG) files: ``APNGFile`` reads and checks the chunk layout, ``APNGFrameImage`` decodes
/// each frame's pixels through libspng, ``APNGCanvas`` composites them with their blend and dispose ops, and the
/// decode options (first frame only, thumbnails, orientation) apply to every composited frame, as for GIF and
/// WebP.
///
/// The result holds one full-canvas bitmap per animation frame. A default image that is not part of the
/// animation (its fcTL does not precede IDAT) is skipped; with ``DecodeOptions/firstFrameOnly`` the result is the
/// first animation frame, and with ``DecodeOptions/frameIndex`` that frame alone (the ones before it are drawn on
/// the canvas, not kept; an index past the last frame throws `ImageError.Code.invalidParameter`). Durations
/// come from each fcTL's delay (``APNGFrameControl/duration``), the loop count from acTL's `num_plays`
/// (0 = forever). As for GIF, a result of one frame is a still image: duration 0, loop count 1. Damage anywhere
/// throws `ImageError.Code.badImageData`: no shortened animation is returned, unless the decode is lenient
/// (``PNGCoder/decodeCompleteFrames(_:options:)``).
enum APNGDecoder {
    /// PNG colour types whose samples carry alpha: grey + alpha (4) and RGBA (6).
    /// Whether the composited animation can show a transparent pixel: an alpha channel or tRNS chunk, or
    /// frames that leave part of the transparent canvas uncovered (see ``CanvasOpacity``).
    static func mayShowTransparency(_ file: APNGFile) -> Bool {
        if PNGCoder.colorTypeHasAlpha(file.colorType) || file.transparency != nil { return true }
        var opacity = CanvasOpacity(canvas: file.canvas)
        for frame in file.frames {
            let disposal: CanvasOpacity.Disposal = switch frame.control.disposal {
            case .none: .keep
            case .background: .clearToTransparent
            case .previous: .restorePrevious
            }
            opacity.draw(rect: frame.control.rect, declaresTransparency: false, disposal: disposal)
        }
        return opacity.hasShownTransparency
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws -> Image {
        try decodeFrames(bytes, options: options, lenient: false).image
    }

    /// Decodes every frame; when `lenient`, damage ends the animation after the frames known to be whole (at
    /// least one is needed) and its error is returned beside them.
    static func decodeFrames(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, lenient: Bool) throws
        -> CompleteFrames
    {
        // A frame index wins over first-frame-only; the frames before it are drawn but not kept.
        let pickedFrame = options.frameIndex
        let file = try APNGFile(bytes, limits: options.limits,
                                keepingFirstFrameOnly: pickedFrame.map { $0 == 0 } ?? options.firstFrameOnly,
                                lenient: lenient)
        var stopReason = file.stopReason
        if let pickedFrame, pickedFrame >= file.frames.count {
            throw stopReason ?? ImageError(
                .invalidParameter, "APNG: frame \(pickedFrame) asked, the animation has \(file.frames.count)")
        }
        let orientation = file.exif.flatMap { EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: bytes[$0])) }
            ?? .up
        var frameImage = APNGFrameImage(file: file, limits: options.limits)
        var canvas = APNGCanvas(size: file.canvas)
        // Alpha from the chunks, not the pixels, so that ``PNGCoder/properties(of:)`` says the same.
        let hasAlpha = mayShowTransparency(file)
        var reduced = false
        var frames: [ImageFrame] = []
        frames.reserveCapacity(file.frames.count)
        for (number, frame) in file.frames.enumerated() {
            let pixels: PixelBuffer
            do {
                pixels = try frameImage.decode(frame)
                guard pixels.size == frame.control.rect.size else {
                    throw ImageError(.badImageData,
                                     "APNG: frame \(number) decoded to \(pixels.size), not \(frame.control.rect.size)")
                }
            } catch let error as ImageError where lenient && error.code == .badImageData && !frames.isEmpty {
                stopReason = error
                break
            }
            canvas.draw(pixels, control: frame.control)
            if let pickedFrame, number < pickedFrame { continue }
            let finished = try options.finish(canvas.snapshot(), sourceSize: file.canvas, orientation: orientation)
            reduced = reduced || finished.reduced
            frames.append(ImageFrame(pixels: finished.pixels, duration: frame.control.duration))
            if pickedFrame != nil { break }
        }
        guard !frames.isEmpty else {
            throw stopReason ?? ImageError(.badImageData, "APNG: the animation has no frames")
        }
        let isStill = frames.count == 1
        if isStill { frames[0].duration = 0 }
        var flags: Image.Flags = hasAlpha ? .hasAlpha : []
        if reduced { flags.insert(.thumbnail) }
        let image = Image(frames: frames, loopCount: isStill ? 1 : file.playCount, format: .png,
                          scale: options.resolvedScale, orientation: orientation, flags: flags)
        return CompleteFrames(image: image, error: stopReason)
    }
}
