extension ImageTransformers {
    /// Cuts out a rectangle (SDWebImage's `SDImageCroppingTransformer`).
    ///
    /// The rectangle is clamped to the image: the part that lies inside is kept. A rectangle with a zero or
    /// negative side, or one that misses the image entirely, throws `ImageError.Code.invalidParameter`. Pixels are
    /// copied exactly.
    ///
    /// Key: `Cropping({X,Y,W,H})` with the rectangle as given (before clamping): `Cropping({10,20,100,50})`.
    public struct Crop: ImageTransformer {
        /// The rectangle to keep, in pixels, origin at the top-left corner.
        public var rect: PixelRect

        /// A crop to `rect`.
        public init(_ rect: PixelRect) {
            self.rect = rect
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String { "Cropping({\(rect.x),\(rect.y),\(rect.width),\(rect.height)})" }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            guard rect.width > 0, rect.height > 0 else {
                throw ImageError(.invalidParameter, "cannot crop to an empty rectangle (\(rect))")
            }
            let kept = rect.clamped(to: image.size)
            guard kept.width > 0, kept.height > 0 else {
                throw ImageError(.invalidParameter, "the crop rectangle \(rect) lies outside the \(image.size) image")
            }
            if kept.size == image.size { return image.markedTransformed(preservingMetadata: preservesMetadata) }
            return try image.transformingFrames(preservingMetadata: preservesMetadata, alpha: .unchanged,
                                                deep: { try $0.cropped(to: kept) }) { pixels in
                try pixels.cropped(to: kept)
            }
        }
    }
}

extension PixelBuffer {
    /// The pixels inside `rect`, which must lie within the buffer and not be empty.
    func cropped(to rect: PixelRect) throws -> PixelBuffer {
        try withUnsafeBytes { source in
            try PixelBuffer(width: rect.width, height: rect.height) { destination in
                PixelRows.crop(source.baseAddress!, sourceWidth: width, to: rect, into: destination.baseAddress!,
                               bytesPerPixel: 4)
            }
        }
    }
}
