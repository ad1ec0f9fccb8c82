import Foundation

/// What a PQ image should look like on an SDR screen, written from the standards and not from the library's
/// colour path: SMPTE ST 2084's EOTF, ITU-R BT.2390's EETF (section 5.4, on normalised PQ values, the source range
/// from black to the content's peak, the target's peak HDR reference white of BT.2408, 203 cd/m², which becomes
/// SDR white), BT.2087's BT.2020-to-BT.709 matrix on linear light, then the sRGB encoding (IEC 61966-2-1).
public enum HDRReference {
    /// The PQ signals of `pq-src.png` (its script, `make-pq.py`), at pixel (`x`, `y`) of its 64×32.
    public static func signal(x: Int, y: Int) -> [Double] {
        [0.15 + 0.75 * Double(x) / 63, 0.10 + 0.70 * Double(y) / 31, 0.35 + 0.30 * Double(x + y) / 94]
            .map { ($0 * 65_535).rounded() / 65_535 }
    }

    /// 8-bit sRGB for PQ signals `rgb` (BT.2020 primaries) of content that peaks at `peak` cd/m².
    public static func sRGB(pq rgb: [Double], peak: Double) -> [UInt8] {
        let white = 203.0
        let top = inverseEOTF(peak)
        let maxLum = inverseEOTF(white) / top
        let ks = 1.5 * maxLum - 0.5
        let linear2020 = rgb.map { e -> Double in
            let e1 = min(e / top, 1)
            var e2 = e1
            if e1 >= ks {
                let t = (e1 - ks) / (1 - ks)
                e2 = (2 * pow(t, 3) - 3 * pow(t, 2) + 1) * ks + (pow(t, 3) - 2 * pow(t, 2) + t) * (1 - ks)
                    + (-2 * pow(t, 3) + 3 * pow(t, 2)) * maxLum
            }
            return eotf(e2 * top) / white
        }
        let matrix: [[Double]] = [[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]]
        return matrix.map { row in
            let light = min(max(zip(row, linear2020).map(*).reduce(0, +), 0), 1)
            let encoded = light <= 0.0031308 ? 12.92 * light : 1.055 * pow(light, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
    }

    /// ST 2084: a PQ signal (0…1) to cd/m².
    public static func eotf(_ e: Double) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let p = pow(e, 1 / m2)
        return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// ST 2084's inverse: cd/m² to a PQ signal.
    public static func inverseEOTF(_ nits: Double) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let y = pow(nits / 10_000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// How far `decoded` (RGBA8 of `pq-src.png`'s 64×32, however encoded) is from the reference at `peak`, over
    /// the colour channels: the mean difference, the 99th percentile and the largest.
    public static func difference(_ decoded: [UInt8], peak: Double) -> (mean: Double, p99: Int, max: Int) {
        var errors: [Int] = []
        for y in 0..<32 {
            for x in 0..<64 {
                let expected = sRGB(pq: signal(x: x, y: y), peak: peak)
                for channel in 0..<3 { errors.append(abs(Int(decoded[(y * 64 + x) * 4 + channel]) - Int(expected[channel]))) }
            }
        }
        errors.sort()
        return (Double(errors.reduce(0, +)) / Double(errors.count), errors[errors.count * 99 / 100], errors.last ?? 0)
    }

    /// The mean of the colour channels of RGBA8 `pixels`: how bright an image is shown.
    public static func meanLevel(_ pixels: [UInt8]) -> Double {
        var total = 0
        for index in stride(from: 0, to: pixels.count, by: 4) { total += Int(pixels[index]) + Int(pixels[index + 1]) + Int(pixels[index + 2]) }
        return Double(total) / Double(pixels.count / 4 * 3)
    }
}
