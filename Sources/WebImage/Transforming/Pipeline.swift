extension ImageTransformers {
    /// Several transformers applied in order (SDWebImage's `SDImagePipelineTransformer`).
    ///
    /// Key: the members' keys joined with `-`, in order: `Resizing({200,200},aspectFill)-RoundCorner(16,15,0,#00000000)`.
    /// An empty pipeline has the empty key and returns the image unchanged (still flagged
    /// ``Image/Flags/transformed``).
    public struct Pipeline: ImageTransformer {
        /// The members, first applied first.
        public var transformers: [any ImageTransformer]

        /// A pipeline of `transformers`, applied first to last.
        public init(_ transformers: [any ImageTransformer]) {
            self.transformers = transformers
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String { transformers.map(\.key).joined(separator: "-") }

        /// True when every member keeps metadata.
        public var preservesMetadata: Bool { transformers.allSatisfy(\.preservesMetadata) }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            var result = image.markedTransformed(preservingMetadata: true)
            for transformer in transformers {
                if Task.isCancelled { throw ImageError(.cancelled, "the transformation was cancelled") }
                result = try transformer.transform(result)
            }
            result.flags.insert(.transformed)
            return result
        }
    }
}
