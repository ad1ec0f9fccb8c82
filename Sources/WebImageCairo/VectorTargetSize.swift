import WebImage

extension DecodeOptions {
    /// The size to draw a vector page or document of `intrinsic` pixels at. Unlike a bitmap, a vector has no
    /// resolution to lose: a ``thumbnailPixelSize`` box is honoured larger or smaller than the intrinsic size
    /// (fitted inside it with ``preserveAspectRatio``, else filled exactly), as SDWebImage's SVG and PDF coders
    /// do; ``scaleDownLimitBytes`` then only ever reduces it.
    package func vectorTargetSize(for intrinsic: PixelSize) -> PixelSize {
        var size = intrinsic
        if let box = thumbnailPixelSize, box.width > 0, box.height > 0 {
            if preserveAspectRatio {
                let ratio = min(Double(box.width) / Double(intrinsic.width),
                                Double(box.height) / Double(intrinsic.height))
                size = PixelSize(width: max(1, Int((Double(intrinsic.width) * ratio).rounded())),
                                 height: max(1, Int((Double(intrinsic.height) * ratio).rounded())))
            } else {
                size = box
            }
        }
        guard let limit = scaleDownLimitBytes else { return size }
        return DecodeOptions(scaleDownLimitBytes: limit).targetSize(forDisplayed: size) ?? size
    }
}
