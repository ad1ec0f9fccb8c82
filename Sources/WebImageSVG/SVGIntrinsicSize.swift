import CRsvg
import WebImage
import WebImageCairo

/// The size an SVG is drawn at when no size is asked for, from its `width`, `height` and `viewBox`.
///
/// 1. Absolute `width` and `height` (px, in, cm, mm, pt, pc, em, ex at librsvg's 96 dpi):
///    `rsvg_handle_get_intrinsic_size_in_pixels`.
/// 2. One absolute side and a `viewBox`: that side, the other from the viewBox's aspect ratio (what browsers do).
/// 3. A `viewBox` only (both sides absent or percentages): the viewBox's size in user units, as SDWebImage's SVG
///    coder does.
/// 4. Nothing: ``defaultSide`` for each side without an absolute length.
enum SVGIntrinsicSize {
    /// The side used when the document gives neither an absolute length nor a viewBox.
    static let defaultSide = 512.0
    /// The resolution for physical units (set on every handle), and librsvg's default font size for `em`/`ex`.
    static let dpi = 96.0, fontSize = 12.0

    static func resolve(_ handle: OpaquePointer) -> (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) != 0 { return (width, height) }
        var hasWidth: Int32 = 0, hasHeight: Int32 = 0, hasViewBox: Int32 = 0
        var widthLength = RsvgLength(), heightLength = RsvgLength(), viewBox = RsvgRectangle()
        rsvg_handle_get_intrinsic_dimensions(handle, &hasWidth, &widthLength, &hasHeight, &heightLength,
                                             &hasViewBox, &viewBox)
        let absoluteWidth = hasWidth != 0 ? pixels(widthLength) : nil
        let absoluteHeight = hasHeight != 0 ? pixels(heightLength) : nil
        if hasViewBox != 0, viewBox.width > 0, viewBox.height > 0 {
            let aspect = viewBox.width / viewBox.height
            if let absoluteWidth { return (absoluteWidth, absoluteWidth / aspect) }
            if let absoluteHeight { return (absoluteHeight * aspect, absoluteHeight) }
            return (viewBox.width, viewBox.height)
        }
        return (absoluteWidth ?? defaultSide, absoluteHeight ?? defaultSide)
    }

    /// A length in pixels, or `nil` for a percentage (relative to a viewport the document does not have).
    static func pixels(_ length: RsvgLength) -> Double? {
        switch length.unit {
        case RSVG_UNIT_PX: length.length
        case RSVG_UNIT_IN: length.length * dpi
        case RSVG_UNIT_CM: length.length * dpi / 2.54
        case RSVG_UNIT_MM: length.length * dpi / 25.4
        case RSVG_UNIT_PT: length.length * dpi / 72
        case RSVG_UNIT_PC: length.length * dpi / 6
        case RSVG_UNIT_EM: length.length * fontSize
        case RSVG_UNIT_EX: length.length * fontSize / 2
        default: nil
        }
    }

    /// Whole pixels for an exact size: rounded up like `rsvg-convert` (a 10.5-wide drawing needs 11 columns),
    /// after forgiving float noise. Throws for an empty or absurd size.
    static func pixels(_ exact: (width: Double, height: Double)) throws -> PixelSize {
        try VectorSize.wholePixels(width: exact.width, height: exact.height, subject: "SVG: the document")
    }
}
