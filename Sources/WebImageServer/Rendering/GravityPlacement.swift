import WebImage

/// Where a crop of a given size sits in an image, for every gravity except the smart one (which reads pixels; see
/// ``SmartCrop``).
///
/// Offsets follow imgproxy: pixels when at least 1 in size, a fraction of the image's side below that, and they
/// move the crop away from its anchor's edge (so `ea` with x = 10 ends 10 pixels left of the right edge). The
/// result always lies inside the image.
public enum GravityPlacement {
    /// The rectangle of `crop` in an image of `image` pixels, placed by `gravity`.
    public static func rect(of crop: PixelSize, in image: PixelSize, gravity: Gravity) -> PixelRect {
        let free = (x: Double(image.width - crop.width), y: Double(image.height - crop.height))
        var x: Double, y: Double
        switch gravity.anchor {
        case .focusPoint:
            x = gravity.x * Double(image.width) - Double(crop.width) / 2
            y = gravity.y * Double(image.height) - Double(crop.height) / 2
        default:
            let offsetX = offset(gravity.x, of: image.width), offsetY = offset(gravity.y, of: image.height)
            switch gravity.anchor {
            case .west, .northWest, .southWest: x = offsetX
            case .east, .northEast, .southEast: x = free.x - offsetX
            default: x = free.x / 2 + offsetX
            }
            switch gravity.anchor {
            case .north, .northEast, .northWest: y = offsetY
            case .south, .southEast, .southWest: y = free.y - offsetY
            default: y = free.y / 2 + offsetY
            }
        }
        let left = Int(min(max(x, 0), free.x).rounded()), top = Int(min(max(y, 0), free.y).rounded())
        return PixelRect(x: left, y: top, width: crop.width, height: crop.height)
    }

    /// An offset in pixels: absolute from 1 up (or −1 down), a fraction of `side` between.
    static func offset(_ value: Double, of side: Int) -> Double {
        abs(value) >= 1 ? value : value * Double(side)
    }
}
