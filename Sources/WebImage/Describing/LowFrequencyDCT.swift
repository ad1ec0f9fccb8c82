import Foundation

/// The lowest frequencies of a plane's two-dimensional DCT-II, without its constant factors: coefficient (u, v) is
/// Σ_y cos(π/H · v · (y + ½)) · Σ_x plane[x, y] · cos(π/W · u · (x + ½)). ThumbHash and the perceptual hash both
/// keep a few of them.
enum LowFrequencyDCT {
    /// The `columns` × `rows` lowest coefficients of `plane` (`width` × `height`, row by row), at `v * columns + u`.
    static func coefficients(of plane: [Double], width: Int, height: Int, columns: Int, rows: Int) -> [Double] {
        // Separable: each row is summed against every horizontal cosine once, then the row sums are weighted.
        let fx = (0..<columns).flatMap { u in
            (0..<width).map { x in cos(Double.pi / Double(width) * Double(u) * (Double(x) + 0.5)) }
        }
        var rowSums = [Double](repeating: 0, count: height * columns)
        for y in 0..<height {
            for u in 0..<columns {
                var sum = 0.0
                for x in 0..<width { sum += plane[x + y * width] * fx[u * width + x] }
                rowSums[y * columns + u] = sum
            }
        }
        var result = [Double](repeating: 0, count: rows * columns)
        for v in 0..<rows {
            for u in 0..<columns {
                var sum = 0.0
                for y in 0..<height {
                    sum += rowSums[y * columns + u] * cos(Double.pi / Double(height) * Double(v) * (Double(y) + 0.5))
                }
                result[v * columns + u] = sum
            }
        }
        return result
    }
}
