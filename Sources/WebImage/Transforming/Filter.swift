extension ImageTransformers {
    /// Applies a named closure to every frame's pixels (SDWebImage's `SDImageFilterTransformer`, with a
    /// closure in place of a Core Image filter).
    ///
    /// The name is the whole identity of the filter: two filters with the same name must do the same thing,
    /// and a filter whose behaviour changes needs a new name, or cached results of the old one are served.
    /// The closure gets straight-alpha pixels and returns new ones; all frames must come back the same size.
    /// Transparency of the result is measured, so ``Image/Flags/hasAlpha`` stays truthful.
    ///
    /// A frame kept in 16 bits (``ImageFrame/deepPixels``) goes through ``deepBody`` when the filter has one and
    /// stays 16-bit (its 8-bit pixels are the result rounded); without it, the frame's 8-bit pixels are filtered
    /// and the result is an 8-bit frame.
    ///
    /// Key: `Filter(NAME)`: `Filter(sepia)`.
    public struct Filter: ImageTransformer {
        /// The filter's name: its key.
        public var name: String
        /// Whether the result keeps the source's metadata (see ``ImageTransformer/preservesMetadata``).
        public var preservesMetadata: Bool
        /// The work, applied to each frame.
        public var body: @Sendable (PixelBuffer) throws -> PixelBuffer
        /// The same work on a 16-bit frame, if the filter can do it in 16 bits.
        public var deepBody: (@Sendable (DeepPixelBuffer) throws -> DeepPixelBuffer)?

        /// A filter called `name` that runs `body` on every frame, and `deep` instead on a frame kept in 16 bits
        /// when given: both must do the same thing, at their depths.
        public init(name: String, preservesMetadata: Bool = true,
                    deep: (@Sendable (DeepPixelBuffer) throws -> DeepPixelBuffer)? = nil,
                    _ body: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer) {
            self.name = name
            self.preservesMetadata = preservesMetadata
            self.deepBody = deep
            self.body = body
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String { "Filter(\(name))" }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            try image.transformingFrames(preservingMetadata: preservesMetadata, alpha: .measured, deep: deepBody, body)
        }
    }
}
