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
}
