extension ImageTransformers {
    /// Gaussian blur (SDWebImage's `SDImageBlurTransformer`).
    ///
    /// ``radius`` is the Gaussian's standard deviation in pixels, as for Pillow's `GaussianBlur` and Core
    /// Image's `CIGaussianBlur`. The blur is three extended box passes per axis (Gwosdek et al., as Pillow):
    /// their variance equals the Gaussian's, the cost does not grow with the radius, and the result differs
    /// from a true Gaussian by about one level in 255. Edges repeat the border pixels; alpha is blurred
    /// premultiplied. Radius 0 returns the image unchanged; radii above ``maximumRadius`` act as
    /// ``maximumRadius``; negative, NaN or infinite radii throw `ImageError.Code.invalidParameter`; images with a
    /// side over ``PixelBuffer/maximumFilteredSide`` throw `ImageError.Code.imageTooLarge`.
    ///
    /// Key: `Blur(RADIUS)`: `Blur(10)`, `Blur(2.5)`.
    public struct Blur: ImageTransformer {
        /// The largest radius applied; beyond it a blur is a near-flat average on any realistic image, and the
        /// cap bounds the edge buffers.
        public static let maximumRadius = 1000.0

        /// The standard deviation of the Gaussian, in pixels.
        public var radius: Double

        /// A Gaussian blur with standard deviation `radius`.
        public init(radius: Double) {
            self.radius = radius
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String { "Blur(\(TransformerKeyFormat.number(radius)))" }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            try ImageTransformers.checkNonNegative(radius, "the blur radius")
            if radius == 0 { return image.markedTransformed(preservingMetadata: preservesMetadata) }
            try PixelBuffer.checkFilterable(image.size)
            let box = ExtendedBox(sigma: min(radius, Self.maximumRadius))
            let hasAlpha = image.hasAlpha
            return try image.transformingFrames(preservingMetadata: preservesMetadata, alpha: .unchanged,
                                                deep: { try $0.boxBlurred(box, passes: 3) }) { pixels in
                try pixels.boxBlurred(box, passes: 3, hasAlpha: hasAlpha)
            }
        }
    }
}
