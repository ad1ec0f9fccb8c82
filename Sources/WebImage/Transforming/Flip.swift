extension ImageTransformers {
    /// Mirrors the image left to right, top to bottom, or both (SDWebImage's `SDImageFlippingTransformer`).
    /// Exact: pixels are moved, never resampled. Flipping neither way returns the image unchanged.
    ///
    /// Key: `Flipping(H,V)` with `1` or `0` for each axis: `Flipping(1,0)` mirrors left to right.
    public struct Flip: ImageTransformer {
        /// Mirror left to right.
        public var horizontal: Bool
        /// Mirror top to bottom.
        public var vertical: Bool

        /// A flip along the chosen axes.
        public init(horizontal: Bool, vertical: Bool) {
            self.horizontal = horizontal
            self.vertical = vertical
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String {
            "Flipping(\(TransformerKeyFormat.flag(horizontal)),\(TransformerKeyFormat.flag(vertical)))"
        }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            let orientation: Orientation = switch (horizontal, vertical) {
            case (false, false): .up
            case (true, false): .upMirrored
            case (false, true): .downMirrored
            case (true, true): .down
            }
            if orientation == .up { return image.markedTransformed(preservingMetadata: preservesMetadata) }
            return try image.transformingFrames(preservingMetadata: preservesMetadata, alpha: .unchanged,
                                                deep: { try $0.applying(orientation) }) { pixels in
                try pixels.applying(orientation)
            }
        }
    }
}
