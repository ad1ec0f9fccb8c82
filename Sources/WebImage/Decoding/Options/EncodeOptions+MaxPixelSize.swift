extension EncodeOptions {
    /// `pixels` scaled down (area averaging, aspect ratio kept) to fit inside a ``maxPixelSize`` square, or
    /// unchanged when no limit is set or it already fits. Encoders call it on every frame they write.
    public func fittingMaxPixelSize(_ pixels: PixelBuffer) throws -> PixelBuffer {
        guard let limit = maxPixelSize, limit > 0, pixels.width > limit || pixels.height > limit else { return pixels }
        let ratio = Double(limit) / Double(max(pixels.width, pixels.height))
        let target = PixelSize(width: max(1, Int((Double(pixels.width) * ratio).rounded())),
                               height: max(1, Int((Double(pixels.height) * ratio).rounded())))
        return try pixels.resized(to: target, filter: .area)
    }
}
