/// A size in pixels. Both dimensions are whole numbers; zero means "no pixels".
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    /// Creates a size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Number of pixels; saturates instead of overflowing for hostile header values.
    public var area: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    /// The same size with width and height exchanged (what a 90° rotation does).
    public var transposed: PixelSize { PixelSize(width: height, height: width) }

    public var description: String { "\(width)x\(height)" }
}

/// A rectangle in pixel coordinates, origin at the top-left corner.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// Creates a rectangle whose top-left corner is at (`x`, `y`).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The size of the rectangle.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The part of this rectangle inside `0..<size.width` × `0..<size.height`; empty when they do not meet.
    public func clamped(to size: PixelSize) -> PixelRect {
        let left = min(max(x, 0), size.width), top = min(max(y, 0), size.height)
        let right = min(max(x.addingReportingOverflow(width).partialValue, left), size.width)
        let bottom = min(max(y.addingReportingOverflow(height).partialValue, top), size.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    public var description: String { "\(x),\(y),\(width),\(height)" }
}
