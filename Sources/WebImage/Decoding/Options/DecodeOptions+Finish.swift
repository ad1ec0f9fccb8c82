extension DecodeOptions {
    /// The orientation a decoder should apply to pixels stored with `orientation`.
    public func effectiveOrientation(_ orientation: Orientation) -> Orientation {
        applyOrientation ? orientation : .up
    }

    /// The size, in the stored (not yet oriented) axes, to decode a bitmap of `storedSize` to; `nil` for full size.
    /// Decoders that can shrink while decoding (JPEG DCT scaling) aim at or above this size.
    public func storedTargetSize(for storedSize: PixelSize, orientation: Orientation) -> PixelSize? {
        let turn = effectiveOrientation(orientation)
        guard let target = targetSize(forDisplayed: turn.displayedSize(of: storedSize)) else { return nil }
        return turn.swapsAxes ? target.transposed : target
    }

    /// The common last step of every decoder: area-average down to the requested size, then turn upright.
    /// Returns the pixels and whether they were reduced on purpose (a thumbnail).
    public func finish(_ pixels: PixelBuffer, sourceSize: PixelSize, orientation: Orientation) throws
        -> (pixels: PixelBuffer, reduced: Bool)
    {
        var result = pixels
        var reduced = pixels.size != sourceSize
        if let target = storedTargetSize(for: sourceSize, orientation: orientation), target != pixels.size {
            result = try pixels.resized(to: target, filter: .area)
            reduced = true
        }
        return (try result.applying(effectiveOrientation(orientation)), reduced)
    }

    /// ``finish(_:sourceSize:orientation:)`` for a deep bitmap (``keepsHighBitDepth``): the same reduction and
    /// turn, in 16 bits.
    public func finish(deep pixels: DeepPixelBuffer, sourceSize: PixelSize, orientation: Orientation) throws
        -> (pixels: DeepPixelBuffer, reduced: Bool)
    {
        var result = pixels
        var reduced = pixels.size != sourceSize
        if let target = storedTargetSize(for: sourceSize, orientation: orientation), target != pixels.size {
            result = try pixels.resampled(to: target, from: ResamplingRegion(covering: pixels.size),
                                          horizontalFilter: .area, verticalFilter: .area)
            reduced = true
        }
        return (try result.applying(effectiveOrientation(orientation)), reduced)
    }

    /// `image`, decoded whole and upright before, reduced as a decode of its file with these options would
    /// reduce it (the thumbnail box, the scale-down limit, the first frame only): each frame's pixels, and its
    /// 16-bit samples when they are kept, area-averaged down. A memory-cached original is made into a thumbnail
    /// this way, from its pixels, without being encoded and decoded again.
    func reduced(_ image: Image) throws -> Image {
        if let box = fillBox {
            return try cutToFill(covering(box, displayedSize: image.size).reduced(image), box: box)
        }
        var result = image
        if firstFrameOnly, image.isAnimated { result.frames = [image.frames[0]] }
        var reducedAny = false
        for index in result.frames.indices {
            let frame = result.frames[index]
            let (pixels, reduced) = try finish(frame.pixels, sourceSize: frame.pixels.size, orientation: .up)
            guard reduced else { continue }
            reducedAny = true
            let deep = try frame.deepPixels.flatMap { deep in
                keepsHighBitDepth ? try finish(deep: deep, sourceSize: deep.size, orientation: .up).pixels : nil
            }
            result.frames[index].pixels = pixels
            result.frames[index].deepPixels = deep
        }
        if reducedAny { result.flags.insert(.thumbnail) }
        return result
    }
}
