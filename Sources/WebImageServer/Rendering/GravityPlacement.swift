import WebImage

/// Where a crop of a given size sits in an image, for every gravity except the smart one (which reads pixels; see
/// ``SmartCrop``).
///
/// Offsets follow imgproxy: pixels when at least 1 in size, a fraction of the image's side below that, and they
/// move the crop away from its anchor's edge (so `ea` with x = 10 ends 10 pixels left of the right edge). Offsets
/// in pixels are multiplied by the device pixel ratio in effect. The result lies inside the image, unless overflow
/// is allowed (a watermark may hang over the edge, as long as one pixel of it stays inside).
///
/// The same placement puts a smaller image on a larger canvas (`extend`): the canvas is then the "image" and the
/// smaller image the "crop".
enum GravityPlacement {
    /// The rectangle of `crop` in an image of `image` pixels, placed by `gravity`; offsets in pixels are
    /// multiplied by `dpr`.
    static func rect(of crop: PixelSize, in image: PixelSize, gravity: Gravity, dpr: Double = 1,
                            allowsOverflow: Bool = false) -> PixelRect {
        let free = (x: image.width - crop.width, y: image.height - crop.height)
        var x: Int, y: Int
        switch gravity.anchor {
        case .focusPoint:
            x = evenRounded(gravity.x * Double(image.width)) - crop.width / 2
            y = evenRounded(gravity.y * Double(image.height)) - crop.height / 2
        default:
            let offsetX = offset(gravity.x, of: image.width, dpr: dpr)
            let offsetY = offset(gravity.y, of: image.height, dpr: dpr)
            switch gravity.anchor {
            case .west, .northWest, .southWest: x = offsetX
            case .east, .northEast, .southEast: x = free.x - offsetX
            // imgproxy's centre: half of one more than the free space, halves to even.
            default: x = evenRounded(Double(free.x + 1) / 2) + offsetX
            }
            switch gravity.anchor {
            case .north, .northEast, .northWest: y = offsetY
            case .south, .southEast, .southWest: y = free.y - offsetY
            default: y = evenRounded(Double(free.y + 1) / 2) + offsetY
            }
        }
        let bounds = allowsOverflow
            ? (minX: 1 - crop.width, maxX: image.width - 1, minY: 1 - crop.height, maxY: image.height - 1)
            : (minX: 0, maxX: free.x, minY: 0, maxY: free.y)
        return PixelRect(x: min(max(x, bounds.minX), bounds.maxX), y: min(max(y, bounds.minY), bounds.maxY),
                         width: crop.width, height: crop.height)
    }

    /// An offset in pixels: absolute from 1 up (or −1 down), times `dpr`; a fraction of `side` between.
    static func offset(_ value: Double, of side: Int, dpr: Double = 1) -> Int {
        evenRounded(abs(value) >= 1 ? value * dpr : value * Double(side))
    }

    /// imgproxy rounds positions half to even.
    private static func evenRounded(_ value: Double) -> Int { Int(value.rounded(.toNearestOrEven)) }
}
