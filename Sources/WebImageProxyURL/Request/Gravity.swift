/// Where a crop is taken from an image larger than the crop (imgproxy's `gravity` option).
public struct Gravity: Sendable, Hashable {
    /// The anchor of the crop.
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        /// The middle (`ce`).
        case center = "ce"
        /// The top edge (`no`), the bottom (`so`), the right (`ea`), the left (`we`).
        case north = "no", south = "so", east = "ea", west = "we"
        /// The corners: top right (`noea`), top left (`nowe`), bottom right (`soea`), bottom left (`sowe`).
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        /// The window with the most detail (edge energy) along the axis the crop can move.
        case smart = "sm"
        /// The point ``Gravity/x``, ``Gravity/y`` (fractions of the image, 0…1) is the crop's centre.
        case focusPoint = "fp"
    }

    /// The anchor.
    public var anchor: Anchor
    /// Offset from the anchor along x: pixels when ≥ 1 (or ≤ −1), a fraction of the image's width otherwise. For
    /// ``Anchor/focusPoint``, the centre's x as a fraction of the width.
    public var x: Double
    /// Offset from the anchor along y, as ``x``; for ``Anchor/focusPoint``, the centre's y.
    public var y: Double

    /// A gravity at `anchor`, moved by `x` and `y`.
    public init(_ anchor: Anchor, x: Double = 0, y: Double = 0) {
        self.anchor = anchor
        self.x = x
        self.y = y
    }

    /// The centre without offsets: imgproxy's default.
    public static let center = Gravity(.center)
}
