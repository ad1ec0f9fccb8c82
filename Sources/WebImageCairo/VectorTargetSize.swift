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

/// Sizes of vector drawings in whole pixels.
package enum VectorSize {
    /// Whole pixels for an exact drawing size: rounded up as `rsvg-convert` and `pdftoppm` do (a 10.5-wide
    /// drawing needs 11 columns), after forgiving float noise. Throws ``ImageError/Code/badImageData`` for an
    /// empty or non-finite size and ``ImageError/Code/imageTooLarge`` for one past `Int32`; `subject` ("SVG: the
    /// document", "PDF: the page") starts the messages.
    package static func wholePixels(width: Double, height: Double, subject: String) throws -> PixelSize {
        func side(_ value: Double, _ name: String) throws -> Int {
            guard value.isFinite, value > 0 else {
                throw ImageError(.badImageData, "\(subject)'s \(name) is \(value), nothing can be drawn")
            }
            guard value <= Double(Int32.max) else {
                throw ImageError(.imageTooLarge, "\(subject) declares a \(name) of \(value)")
            }
            return max(1, Int((value - 1e-6).rounded(.up)))
        }
        return PixelSize(width: try side(width, "width"), height: try side(height, "height"))
    }
}
