extension EncodeOptions {
    /// `pixels` scaled down (area averaging, aspect ratio kept) to fit inside a ``maxPixelSize`` square, or
    /// unchanged when no limit is set or it already fits. Encoders call it on every frame they write.
    public func fittingMaxPixelSize(_ pixels: PixelBuffer) throws -> PixelBuffer {
        guard let target = maxPixelSizeTarget(for: pixels.size) else { return pixels }
        return try pixels.resized(to: target, filter: .area)
    }

    /// The same for a deep bitmap, in 16 bits.
    public func fittingMaxPixelSize(_ pixels: DeepPixelBuffer) throws -> DeepPixelBuffer {
        guard let target = maxPixelSizeTarget(for: pixels.size) else { return pixels }
        return try pixels.resampled(to: target, from: ResamplingRegion(covering: pixels.size),
                                    horizontalFilter: .area, verticalFilter: .area)
    }

    /// A frame fitted the same way, its deep bitmap (when it has one) too.
    public func fittingMaxPixelSize(_ frame: ImageFrame) throws -> ImageFrame {
        guard maxPixelSizeTarget(for: frame.pixels.size) != nil else { return frame }
        if let deep = frame.deepPixels {
            return try ImageFrame(deep: fittingMaxPixelSize(deep), duration: frame.duration)
        }
        return ImageFrame(pixels: try fittingMaxPixelSize(frame.pixels), duration: frame.duration)
    }

    /// The size a bitmap of `size` is scaled to, `nil` when it is kept.
    private func maxPixelSizeTarget(for size: PixelSize) -> PixelSize? {
        guard let limit = maxPixelSize, limit > 0, size.width > limit || size.height > limit else { return nil }
        let ratio = Double(limit) / Double(max(size.width, size.height))
        return PixelSize(width: max(1, Int((Double(size.width) * ratio).rounded())),
                         height: max(1, Int((Double(size.height) * ratio).rounded())))
    }
}
