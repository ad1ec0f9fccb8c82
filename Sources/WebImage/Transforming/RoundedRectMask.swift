#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The coverage of a rounded rectangle and of the border inside it, per pixel, from signed distances.
///
/// A pixel's coverage of a shape is `clamp(0.5 - d, 0, 1)` where `d` is the signed distance from the pixel's
/// centre to the outline (negative inside): one-pixel-wide anti-aliasing, exact for straight edges on pixel
/// boundaries.
struct RoundedRectMask {
    let width: Int
    let height: Int
    /// Radius of each corner of the outline: top-left, top-right, bottom-left, bottom-right.
    let radii: (Double, Double, Double, Double)
    let borderWidth: Double

    init(size: PixelSize, radius: Double, corners: ImageTransformers.Corners, borderWidth: Double) {
        width = size.width
        height = size.height
        let limit = Double(min(size.width, size.height)) / 2
        let radius = min(radius, limit)
        radii = (corners.contains(.topLeft) ? radius : 0, corners.contains(.topRight) ? radius : 0,
                 corners.contains(.bottomLeft) ? radius : 0, corners.contains(.bottomRight) ? radius : 0)
        self.borderWidth = min(borderWidth, limit)
    }

    /// Whether some corner has a radius.
    var roundsAnything: Bool { max(radii.0, radii.1, radii.2, radii.3) > 0 }

    /// Signed distance from (`x`, `y`) to the outline inset by `inset` (its radii shrunk by as much).
    @inline(__always)
    func distance(_ x: Double, _ y: Double, inset: Double) -> Double {
        let halfWidth = Double(width) / 2 - inset, halfHeight = Double(height) / 2 - inset
        let px = x - Double(width) / 2, py = y - Double(height) / 2
        let cornerRadius = py < 0 ? (px < 0 ? radii.0 : radii.1) : (px < 0 ? radii.2 : radii.3)
        let radius = max(cornerRadius - inset, 0)
        let qx = abs(px) - halfWidth + radius, qy = abs(py) - halfHeight + radius
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        return outside + min(max(qx, qy), 0) - radius
    }

    /// `pixels` clipped to the outline, with the border drawn in `border` (transparent for none).
    func apply(to pixels: PixelBuffer, border: RGBA) throws -> PixelBuffer {
        try pixels.withUnsafeBytes { source in
            try PixelBuffer(width: width, height: height) { destination in
                destination.copyMemory(from: source)
                draw(into: destination.baseAddress!.assumingMemoryBound(to: UInt8.self), border: border)
            }
        }
    }

    /// The same for a deep bitmap, in 16 bits.
    func apply(to pixels: DeepPixelBuffer, border: RGBA) throws -> DeepPixelBuffer {
        try pixels.sameDepth(pixels.size) { destination in
            pixels.withUnsafeSamples { _ = destination.initialize(fromContentsOf: $0) }
            draw(into: destination.baseAddress!, border: border)
        }
    }

    /// Clips the straight-alpha samples at `samples` to the outline and draws the border: only the bands along
    /// the edges are computed, pixels further than the largest radius or border from every edge are untouched.
    private func draw<Sample: FixedWidthInteger & UnsignedInteger>(into samples: UnsafeMutablePointer<Sample>,
                                                                  border: RGBA) {
        let margin = min(Int(max(radii.0, radii.1, radii.2, radii.3, borderWidth).rounded(.up)) + 1,
                         max(width, height))
        let widen = Double(Sample.max) / 255  // exactly 1 for bytes, 257 for 16-bit samples
        let borderAlpha = Double(border.a) / 255
        let borderPremultiplied = (Double(border.r) * widen * borderAlpha, Double(border.g) * widen * borderAlpha,
                                   Double(border.b) * widen * borderAlpha)
        for y in 0..<height {
            let inBand = y < margin || y >= height - margin
            var x = 0
            while x < width {
                if !inBand && x == margin && width - margin > margin {
                    x = width - margin
                    continue
                }
                let centerX = Double(x) + 0.5, centerY = Double(y) + 0.5
                let outer = coverage(distance(centerX, centerY, inset: 0))
                let inner = borderWidth > 0 ? coverage(distance(centerX, centerY, inset: borderWidth)) : outer
                if inner < 1 {
                    Self.blend(samples + (y * width + x) * 4, image: inner, border: outer - inner,
                               borderPremultiplied: borderPremultiplied, borderAlpha: borderAlpha)
                }
                x += 1
            }
        }
    }

    @inline(__always)
    private func coverage(_ distance: Double) -> Double { min(max(0.5 - distance, 0), 1) }

    /// Replaces the straight-alpha pixel at `pixel` with `image` × itself + `border` × the border colour
    /// (premultiplied, in the samples' scale).
    private static func blend<Sample: FixedWidthInteger & UnsignedInteger>(
        _ pixel: UnsafeMutablePointer<Sample>, image: Double, border: Double,
        borderPremultiplied: (Double, Double, Double), borderAlpha: Double
    ) {
        let full = Double(Sample.max)
        let sourceAlpha = Double(pixel[3]) / full * image
        let alpha = sourceAlpha + borderAlpha * border
        guard sample(alpha * full, as: Sample.self) > 0 else {
            pixel.update(repeating: 0, count: 4)
            return
        }
        let red = (Double(pixel[0]) * sourceAlpha + borderPremultiplied.0 * border) / alpha
        let green = (Double(pixel[1]) * sourceAlpha + borderPremultiplied.1 * border) / alpha
        let blue = (Double(pixel[2]) * sourceAlpha + borderPremultiplied.2 * border) / alpha
        pixel[0] = sample(red, as: Sample.self)
        pixel[1] = sample(green, as: Sample.self)
        pixel[2] = sample(blue, as: Sample.self)
        pixel[3] = sample(alpha * full, as: Sample.self)
    }

    @inline(__always)
    private static func sample<Sample: FixedWidthInteger & UnsignedInteger>(_ value: Double, as: Sample.Type)
        -> Sample
    {
        Sample(min(max(value.rounded(), 0), Double(Sample.max)))
    }
}
