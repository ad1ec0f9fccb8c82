@testable import WebImage

/// How far apart two resampled images are where it shows: the largest difference of any channel of any pixel,
/// colours weighted by their alpha. Streamed thumbnails and full decodes resized afterwards resample their passes
/// in different orders, and a rounding step in a nearly transparent pixel's premultiplied colour is many steps of
/// its straight colour but the same on screen. Each side rounds twice (a pass, then straight alpha), so two
/// steps apart is the same result.
func alphaWeightedDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    let (p, q) = (a.bytes, b.bytes)
    var largest = 0.0
    for pixel in stride(from: 0, to: min(p.count, q.count), by: 4) {
        let (alphaP, alphaQ) = (Double(p[pixel + 3]), Double(q[pixel + 3]))
        largest = max(largest, abs(alphaP - alphaQ))
        for channel in pixel..<pixel + 3 {
            largest = max(largest, abs(Double(p[channel]) * alphaP - Double(q[channel]) * alphaQ) / 255)
        }
    }
    return largest
}
