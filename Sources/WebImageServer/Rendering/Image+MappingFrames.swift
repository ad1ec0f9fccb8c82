import WebImage

extension Image {
    /// A copy with `body` applied to every frame's pixels, flagged transformed, durations and loop count kept.
    /// Frames of an animation that holds still share one bitmap; it is transformed once and stays shared.
    func mappingFrames(_ body: (PixelBuffer) throws -> PixelBuffer) throws -> Image {
        var done: [Int: PixelBuffer] = [:]
        var mapped: [ImageFrame] = []
        mapped.reserveCapacity(frames.count)
        for frame in frames {
            // The bitmap's address is its identity; the frames keep every bitmap alive meanwhile.
            let identity = frame.pixels.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
            let pixels = try done[identity] ?? body(frame.pixels)
            if frames.count > 1 { done[identity] = pixels }
            mapped.append(ImageFrame(pixels: pixels, duration: frame.duration))
        }
        var result = Image(frames: mapped, loopCount: loopCount, format: format, scale: scale,
                           orientation: orientation, flags: flags)
        result.flags.insert(.transformed)
        result.colorProfile = colorProfile  // new pixels, same colour space
        result.metadata = metadata
        return result
    }
}
