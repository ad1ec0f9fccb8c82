import Foundation

/// ThumbHash placeholders: an image reduced to a few cosine components of its lightness, two colour-difference
/// channels and (when it has any) its alpha, packed into 5 to 25 bytes that also keep its aspect ratio and
/// average colour. Clients draw a hash as a blurred picture of about 32 pixels on its long side.
///
/// ThumbHash is defined on images of at most 100 × 100 pixels: larger pixels are first scaled down to fit (an
/// area average), so pass a thumbnail when you have one.
public enum ThumbHash {
    /// The longest side ThumbHash reads; larger pixels are scaled down to it.
    public static let maximumSide = 100

    /// The ThumbHash of `pixels` (straight alpha, as every ``PixelBuffer``).
    public static func encode(_ pixels: PixelBuffer) throws -> [UInt8] {
        var source = pixels
        if pixels.width > maximumSide || pixels.height > maximumSide {
            let scale = Double(maximumSide) / Double(max(pixels.width, pixels.height))
            source = try pixels.resized(to: PixelSize(width: max(1, Int((Double(pixels.width) * scale).rounded())),
                                                      height: max(1, Int((Double(pixels.height) * scale).rounded()))),
                                        filter: .area)
        }
        let encoder = source.withUnsafeBytes { ThumbHashEncoder(rgba: $0, width: source.width, height: source.height) }
        return encoder.hash()
    }

    /// The picture `hash` describes, about 32 pixels on its long side, in its aspect ratio, with straight alpha.
    /// Throws `ImageError.Code.badImageData` for bytes too short to be a ThumbHash.
    public static func decode(_ hash: [UInt8]) throws -> PixelBuffer {
        let header = try ThumbHashHeader(hash)
        let ratio = header.aspectRatio
        let width = Int(roundedHalfUp(ratio > 1 ? 32 : 32 * ratio))
        let height = Int(roundedHalfUp(ratio > 1 ? 32 / ratio : 32))
        let (l, p, q, a) = header.channels()
        let columnCount = max(l.columns, a?.columns ?? 3), rowCount = max(l.rows, a?.rows ?? 3)
        return try PixelBuffer(width: width, height: height) { bytes in
            var fx = [Double](repeating: 0, count: columnCount), fy = [Double](repeating: 0, count: rowCount)
            var offset = 0
            for y in 0..<height {
                for cy in 0..<rowCount { fy[cy] = cos(Double.pi / Double(height) * (Double(y) + 0.5) * Double(cy)) }
                for x in 0..<width {
                    for cx in 0..<columnCount {
                        fx[cx] = cos(Double.pi / Double(width) * (Double(x) + 0.5) * Double(cx))
                    }
                    let lightness = header.lightnessDC + l.value(fx, fy)
                    let pValue = header.pDC + p.value(fx, fy), qValue = header.qDC + q.value(fx, fy)
                    let alpha = header.alphaDC + (a?.value(fx, fy) ?? 0)
                    let blue = lightness - 2 / 3 * pValue
                    let red = (3 * lightness - blue + qValue) / 2
                    let green = red - qValue
                    bytes[offset] = byte(red)
                    bytes[offset + 1] = byte(green)
                    bytes[offset + 2] = byte(blue)
                    bytes[offset + 3] = byte(alpha)
                    offset += 4
                }
            }
        }
    }

    /// The average colour `hash` keeps (straight alpha). Throws `ImageError.Code.badImageData` for bytes too
    /// short to be a ThumbHash.
    public static func averageColor(of hash: [UInt8]) throws -> RGBA {
        let header = try ThumbHashHeader(hash)
        let blue = header.lightnessDC - 2 / 3 * header.pDC
        let red = (3 * header.lightnessDC - blue + header.qDC) / 2
        let green = red - header.qDC
        func rounded(_ value: Double) -> UInt8 { UInt8(roundedHalfUp(255 * min(1, max(0, value)))) }
        return RGBA(rounded(red), rounded(green), rounded(blue), rounded(header.alphaDC))
    }

    /// The width-to-height ratio `hash` keeps (approximate: the counts of its lightness components). Throws
    /// `ImageError.Code.badImageData` for bytes too short to be a ThumbHash.
    public static func aspectRatio(of hash: [UInt8]) throws -> Double {
        try ThumbHashHeader(hash).aspectRatio
    }

    /// A channel value in 0...1 as a byte, truncated as the reference decoder stores it.
    private static func byte(_ value: Double) -> UInt8 { UInt8(max(0, 255 * min(1, value))) }

    /// Rounds halves up (towards +∞), as the reference implementation rounds, so that hashes match it bit for bit.
    static func roundedHalfUp(_ value: Double) -> Double { (value + 0.5).rounded(.down) }
}
