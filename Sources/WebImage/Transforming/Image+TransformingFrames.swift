/// What a transformation does to transparency, to keep ``Image/Flags/hasAlpha`` truthful.
enum AlphaChange {
    /// Transparency is neither added nor removed in a way worth re-measuring (resize, crop, flip, blur, tint).
    case unchanged
    /// The result has transparent pixels (round corners, rotation by other than a quarter turn).
    case added
    /// Unknown (a user filter): measured on the result.
    case measured
}

extension Image {
    /// A copy with `body` applied to every frame, flagged ``Image/Flags/transformed``.
    ///
    /// Frames that share one bitmap (an animation that holds still) are transformed once and keep sharing.
    /// Every result frame must have the same size. Checks for task cancellation between frames, so a long
    /// animation stops promptly.
    ///
    /// A frame with ``ImageFrame/deepPixels`` goes through `deep` instead, when given, and keeps its depth (its
    /// 8-bit pixels are the deep result rounded); without `deep` it becomes an 8-bit frame.
    func transformingFrames(
        preservingMetadata: Bool, alpha: AlphaChange, deep: ((DeepPixelBuffer) throws -> DeepPixelBuffer)? = nil,
        _ body: (PixelBuffer) throws -> PixelBuffer
    ) throws -> Image {
        var done: [ObjectIdentifier: ImageFrame] = [:]
        var newFrames: [ImageFrame] = []
        newFrames.reserveCapacity(frames.count)
        for frame in frames {
            if !newFrames.isEmpty && Task.isCancelled {
                throw ImageError(.cancelled, "the transformation was cancelled")
            }
            let identity = ObjectIdentifier(frame.pixels.storage)
            var made = try done[identity] ?? frame.transformed(deep: deep, body)
            done[identity] = made
            if let first = newFrames.first, first.pixels.size != made.pixels.size {
                let sizes = "\(first.pixels.size), \(made.pixels.size)"
                throw ImageError(.invalidParameter, "a transformation made frames of different sizes (\(sizes))")
            }
            made.duration = frame.duration
            newFrames.append(made)
        }
        var flags = self.flags.union(.transformed)
        switch alpha {
        case .unchanged: break
        case .added: flags.insert(.hasAlpha)
        case .measured:
            if newFrames.contains(where: { $0.pixels.containsTransparency }) {
                flags.insert(.hasAlpha)
            } else {
                flags.remove(.hasAlpha)
            }
        }
        var result = Image(
            frames: newFrames, loopCount: loopCount,
            format: preservingMetadata ? format : .unknown, scale: preservingMetadata ? scale : 1,
            orientation: preservingMetadata ? orientation : .up, flags: flags)
        result.colorProfile = colorProfile  // new pixels, same colour space
        result.metadata = metadata
        return result
    }

    /// The same image flagged ``Image/Flags/transformed``: what a transformer that changes nothing returns.
    func markedTransformed(preservingMetadata: Bool) -> Image {
        var copy = self
        copy.flags.insert(.transformed)
        if !preservingMetadata {
            copy.format = .unknown
            copy.scale = 1
            copy.orientation = .up
        }
        return copy
    }
}

extension ImageTransformers {
    /// Throws `ImageError.Code.imageTooLarge` when `frameCount` frames of `size` would pass
    /// ``DecodeLimits/default`` (the bound on every transformer's output), and
    /// `ImageError.Code.invalidParameter` for an empty size.
    static func checkResult(_ size: PixelSize, frameCount: Int) throws {
        guard size.width > 0, size.height > 0 else {
            throw ImageError(.invalidParameter, "a transformation cannot make an empty image (\(size))")
        }
        try DecodeLimits.default.check(size)
        try DecodeLimits.default.check(frameCount: frameCount, canvas: size)
    }

    /// Throws `ImageError.Code.invalidParameter` unless `value` is finite and not negative.
    static func checkNonNegative(_ value: Double, _ name: String) throws {
        guard value.isFinite, value >= 0 else {
            throw ImageError(.invalidParameter, "\(name) must be a finite number >= 0, got \(value)")
        }
    }
}

extension ImageFrame {
    /// This frame's bitmap through `deep` when it has a deep one and `deep` is given, otherwise its 8-bit pixels
    /// through `body` (and no deep bitmap): how a transformer keeps ``deepPixels`` where it can.
    public func transformed(deep: ((DeepPixelBuffer) throws -> DeepPixelBuffer)?,
                     _ body: (PixelBuffer) throws -> PixelBuffer) throws -> ImageFrame {
        if let deep, let deepPixels {
            return try ImageFrame(deep: deep(deepPixels), duration: duration)
        }
        return ImageFrame(pixels: try body(pixels), duration: duration)
    }
}
