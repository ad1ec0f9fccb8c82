extension ImageTransformers {
    /// Which corners of a rectangle to round. Raw values are UIKit's `UIRectCorner` bits.
    public struct Corners: OptionSet, Sendable, Hashable {
        /// The corner bits.
        public let rawValue: UInt8
        /// Corners from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The top-left corner.
        public static let topLeft = Corners(rawValue: 1 << 0)
        /// The top-right corner.
        public static let topRight = Corners(rawValue: 1 << 1)
        /// The bottom-left corner.
        public static let bottomLeft = Corners(rawValue: 1 << 2)
        /// The bottom-right corner.
        public static let bottomRight = Corners(rawValue: 1 << 3)
        /// All four corners.
        public static let all: Corners = [.topLeft, .topRight, .bottomLeft, .bottomRight]
    }

    /// Rounds corners and draws an optional border (SDWebImage's `SDImageRoundCornerTransformer`).
    ///
    /// Geometry: the outline is the image rectangle with the chosen corners rounded by ``radius`` (clamped to
    /// half the shorter side). A border of ``borderWidth`` (clamped likewise) runs inside the outline; the
    /// image shows inside the border, whose own corners are rounded by `radius - borderWidth`. Edges are
    /// anti-aliased by each pixel's coverage, blended in premultiplied alpha. The result has alpha whenever a
    /// corner is actually rounded. Negative, NaN or infinite radius or width throw `ImageError.Code.invalidParameter`.
    ///
    /// Key: `RoundCorner(RADIUS,CORNERS,BORDER_WIDTH,BORDER_COLOR)` with CORNERS the ``Corners`` raw value and
    /// the colour as `#rrggbbaa`: `RoundCorner(16,15,2,#ffffffff)`.
    public struct RoundCorners: ImageTransformer {
        /// The corner radius in pixels.
        public var radius: Double
        /// Which corners to round.
        public var corners: Corners
        /// The border's width in pixels; 0 for none.
        public var borderWidth: Double
        /// The border's colour (straight alpha).
        public var borderColor: RGBA

        /// Rounds `corners` by `radius`, with a border of `borderWidth` in `borderColor`.
        public init(radius: Double, corners: Corners = .all, borderWidth: Double = 0,
                    borderColor: RGBA = RGBA(0, 0, 0, 0)) {
            self.radius = radius
            self.corners = corners
            self.borderWidth = borderWidth
            self.borderColor = borderColor
        }

        /// The stable cache-key identity, in the format documented on the type.
        public var key: String {
            "RoundCorner(\(TransformerKeyFormat.number(radius)),\(corners.rawValue),"
                + "\(TransformerKeyFormat.number(borderWidth)),\(TransformerKeyFormat.color(borderColor)))"
        }

        /// The transformed image; see the type's documentation for the rules and errors.
        public func transform(_ image: Image) throws -> Image {
            try ImageTransformers.checkNonNegative(radius, "the corner radius")
            try ImageTransformers.checkNonNegative(borderWidth, "the border width")
            let mask = RoundedRectMask(size: image.size, radius: radius, corners: corners, borderWidth: borderWidth)
            let drawsBorder = mask.borderWidth > 0 && borderColor.a > 0
            if !mask.roundsAnything && mask.borderWidth == 0 {
                return image.markedTransformed(preservingMetadata: preservesMetadata)
            }
            let addsAlpha = mask.roundsAnything || (mask.borderWidth > 0 && borderColor.a < 255)
            return try image.transformingFrames(
                preservingMetadata: preservesMetadata, alpha: addsAlpha ? .added : .unchanged,
                deep: { try mask.apply(to: $0, border: drawsBorder ? borderColor : RGBA(0, 0, 0, 0)) }
            ) { pixels in
                try mask.apply(to: pixels, border: drawsBorder ? borderColor : RGBA(0, 0, 0, 0))
            }
        }
    }
}
