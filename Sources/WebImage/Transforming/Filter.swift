extension ImageTransformers {
    /// Applies a named closure to every frame's pixels (SDWebImage's `SDImageFilterTransformer`, with a
    /// closure in place of a Core Image filter).
    ///
    /// The name is the whole identity of the filter: two filters with the same name must do the same thing,
    /// and a filter whose behaviour changes needs a new name, or cached results of the old one are served.
    /// The closure gets straight-alpha pixels and returns new ones; all frames must come back the same size.
    /// Transparency of the result is measured, so ``Image/Flags/hasAlpha`` stays truthful.
    ///
    /// Key: `Filter(NAME)`: `Filter(sepia)`.
    public struct Filter: ImageTransformer {
        /// The filter's name: its key.
        public var name: String
        /// Whether the result keeps the source's metadata (see ``ImageTransformer/preservesMetadata``).
        public var preservesMetadata: Bool
        /// The work, applied to each frame.
        public var body: @Sendable (PixelBuffer) throws -> PixelBuffer

        /// A filter called `name` that runs `body` on every frame.
        public init(name: String, preservesMetadata: Bool = true,
                    _ body: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer) {
            self.name = name
            self.preservesMetadata = preservesMetadata
            self.body = body
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String { "Filter(\(name))" }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            try image.transformingFrames(preservingMetadata: preservesMetadata, alpha: .measured, body)
        }
    }
}
