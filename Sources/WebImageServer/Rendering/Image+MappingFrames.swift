import WebImage

extension Image {
    /// A copy with `body` applied to every frame's pixels, flagged transformed, durations and loop count kept.
    /// Frames of an animation that holds still share one bitmap; it is transformed once and stays shared.
    /// A frame with a deep bitmap goes through `deep` instead and keeps its depth (see
    /// ``ImageFrame/deepPixels``); every step of a rendering has one, so `preserve_hdr` holds through all of them.
    func mappingFrames(deep: ((DeepPixelBuffer) throws -> DeepPixelBuffer)?,
                       _ body: (PixelBuffer) throws -> PixelBuffer) throws -> Image {
        var done: [Int: ImageFrame] = [:]
        var mapped: [ImageFrame] = []
        mapped.reserveCapacity(frames.count)
        for frame in frames {
            try WorkBudget.checkpoint()  // an animation's frames: hundreds of transforms in one render
            // The bitmap's address is its identity; the frames keep every bitmap alive meanwhile.
            let identity = frame.pixels.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
            var made = try done[identity] ?? frame.transformed(deep: deep, body)
            if frames.count > 1 { done[identity] = made }
            made.duration = frame.duration
            mapped.append(made)
        }
        var result = Image(frames: mapped, loopCount: loopCount, format: format, scale: scale,
                           orientation: orientation, flags: flags)
        result.flags.insert(.transformed)
        result.colorProfile = colorProfile  // new pixels, same colour space
        result.metadata = metadata
        return result
    }
}
