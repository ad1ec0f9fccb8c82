// Static factories, so a transformer reads as `.resize(to: size, fit: .aspectFill)` wherever an
// `ImageTransformer` is expected.

extension ImageTransformer where Self == ImageTransformers.Resize {
    /// Resizes to `size`; see ``ImageTransformers/Resize``.
    public static func resize(to size: PixelSize, fit: ImageTransformers.Resize.Fit = .fill,
                              filter: ResamplingFilter? = nil) -> Self {
        ImageTransformers.Resize(to: size, fit: fit, filter: filter)
    }
}

extension ImageTransformer where Self == ImageTransformers.Crop {
    /// Crops to `rect` (clamped to the image); see ``ImageTransformers/Crop``.
    public static func crop(_ rect: PixelRect) -> Self {
        ImageTransformers.Crop(rect)
    }
}

extension ImageTransformer where Self == ImageTransformers.RoundCorners {
    /// Rounds corners with an optional border; see ``ImageTransformers/RoundCorners``.
    public static func roundCorners(
        radius: Double, corners: ImageTransformers.Corners = .all, borderWidth: Double = 0,
        borderColor: RGBA = RGBA(0, 0, 0, 0)
    ) -> Self {
        ImageTransformers.RoundCorners(radius: radius, corners: corners, borderWidth: borderWidth,
                                       borderColor: borderColor)
    }
}

extension ImageTransformer where Self == ImageTransformers.Flip {
    /// Mirrors along the chosen axes; see ``ImageTransformers/Flip``.
    public static func flip(horizontal: Bool, vertical: Bool) -> Self {
        ImageTransformers.Flip(horizontal: horizontal, vertical: vertical)
    }
}

extension ImageTransformer where Self == ImageTransformers.Rotate {
    /// Rotates `degrees` counter-clockwise; see ``ImageTransformers/Rotate``.
    public static func rotate(degrees: Double, fitSize: Bool) -> Self {
        ImageTransformers.Rotate(degrees: degrees, fitSize: fitSize)
    }
}

extension ImageTransformer where Self == ImageTransformers.Tint {
    /// Tints with `color`; see ``ImageTransformers/Tint``.
    public static func tint(_ color: RGBA, blendMode: ImageTransformers.TintBlendMode = .sourceIn) -> Self {
        ImageTransformers.Tint(color, blendMode: blendMode)
    }
}

extension ImageTransformer where Self == ImageTransformers.Blur {
    /// Gaussian blur with standard deviation `radius`; see ``ImageTransformers/Blur``.
    public static func blur(radius: Double) -> Self {
        ImageTransformers.Blur(radius: radius)
    }
}

extension ImageTransformer where Self == ImageTransformers.Filter {
    /// A named closure applied to every frame, and `deep` to a frame kept in 16 bits; see
    /// ``ImageTransformers/Filter``.
    public static func filter(
        name: String, deep: (@Sendable (DeepPixelBuffer) throws -> DeepPixelBuffer)? = nil,
        _ body: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer
    ) -> Self {
        ImageTransformers.Filter(name: name, deep: deep, body)
    }
}

extension ImageTransformer where Self == ImageTransformers.Pipeline {
    /// `transformers` applied in order; see ``ImageTransformers/Pipeline``.
    public static func pipeline(_ transformers: [any ImageTransformer]) -> Self {
        ImageTransformers.Pipeline(transformers)
    }
}
