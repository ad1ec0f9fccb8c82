import Foundation

/// SSIM, the structural similarity index of Wang, Bovik, Sheikh and Simoncelli (2004): how alike two images look,
/// from 1 (identical) down, comparing local means, variances and covariance of their lightness.
///
/// As the paper defines it: the images' 8-bit grey (`Luma`), an 11 × 11 Gaussian window of σ 1.5 placed wherever
/// it fits inside the image, K1 0.01 and K2 0.03 for a range of 255, variances over the window's weights (not
/// sample variances), and the mean of the local indices. Alpha is not compared.
public enum StructuralSimilarity {
    /// The window's side; images must be at least this large on both sides.
    public static let windowSide = 11

    /// The mean SSIM of `a` and `b`, which must have the same size, at least ``windowSide`` on each side. Throws
    /// `ImageError.Code.invalidParameter` otherwise.
    public static func index(_ a: PixelBuffer, _ b: PixelBuffer) throws -> Double {
        guard a.size == b.size else {
            throw ImageError(.invalidParameter, "SSIM compares images of one size, not \(a.size) and \(b.size)")
        }
        guard a.width >= windowSide, a.height >= windowSide else {
            throw ImageError(.invalidParameter, "SSIM needs \(windowSide)x\(windowSide) pixels or more, not \(a.size)")
        }
        let x = Luma.plane(of: a), y = Luma.plane(of: b)
        let width = a.width, height = a.height
        let products = (xx: zip(x, x).map(*), yy: zip(y, y).map(*), xy: zip(x, y).map(*))
        let meanX = filtered(x, width: width, height: height), meanY = filtered(y, width: width, height: height)
        let meanXX = filtered(products.xx, width: width, height: height)
        let meanYY = filtered(products.yy, width: width, height: height)
        let meanXY = filtered(products.xy, width: width, height: height)
        let c1 = (0.01 * 255.0) * (0.01 * 255.0), c2 = (0.03 * 255.0) * (0.03 * 255.0)
        var total = 0.0
        for index in meanX.indices {
            let mx = meanX[index], my = meanY[index]
            let varianceX = meanXX[index] - mx * mx, varianceY = meanYY[index] - my * my
            let covariance = meanXY[index] - mx * my
            total += ((2 * mx * my + c1) * (2 * covariance + c2))
                / ((mx * mx + my * my + c1) * (varianceX + varianceY + c2))
        }
        return total / Double(meanX.count)
    }

    /// The normalized Gaussian weights of the window (σ 1.5).
    private static let weights: [Double] = {
        let radius = windowSide / 2
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
        let sum = raw.reduce(0, +)
        return raw.map { $0 / sum }
    }()

    /// `plane` filtered with the window wherever it fits: (width − 10) × (height − 10) values, row by row.
    private static func filtered(_ plane: [Double], width: Int, height: Int) -> [Double] {
        let side = windowSide
        let outWidth = width - side + 1, outHeight = height - side + 1
        var horizontal = [Double](repeating: 0, count: outWidth * height)
        for row in 0..<height {
            for column in 0..<outWidth {
                var sum = 0.0
                for tap in 0..<side { sum += plane[row * width + column + tap] * weights[tap] }
                horizontal[row * outWidth + column] = sum
            }
        }
        var result = [Double](repeating: 0, count: outWidth * outHeight)
        for row in 0..<outHeight {
            for column in 0..<outWidth {
                var sum = 0.0
                for tap in 0..<side { sum += horizontal[(row + tap) * outWidth + column] * weights[tap] }
                result[row * outWidth + column] = sum
            }
        }
        return result
    }
}
