import Foundation

/// What ThumbHash encodes of an image of at most 100 × 100 pixels: its pixels composited over their own
/// average colour (so hidden colours under transparency do not show) as lightness, two colour differences
/// (p: yellow–blue, q: red–green) and alpha, each reduced to cosine components and packed as the reference
/// implementation packs them.
struct ThumbHashEncoder {
    let width: Int
    let height: Int
    let hasAlpha: Bool
    private var l: [Double], p: [Double], q: [Double], a: [Double]

    init(rgba bytes: UnsafeRawBufferPointer, width: Int, height: Int) {
        self.width = width
        self.height = height
        let count = width * height
        func colour(_ index: Int) -> SIMD3<Double> {
            SIMD3(Double(bytes[index * 4]), Double(bytes[index * 4 + 1]), Double(bytes[index * 4 + 2]))
        }
        var average = SIMD3<Double>.zero, averageAlpha = 0.0
        for index in 0..<count {
            let alpha = Double(bytes[index * 4 + 3]) / 255
            average += (alpha / 255) * colour(index)
            averageAlpha += alpha
        }
        if averageAlpha > 0 { average /= averageAlpha }
        hasAlpha = averageAlpha < Double(count)
        l = []; p = []; q = []; a = []
        l.reserveCapacity(count); p.reserveCapacity(count); q.reserveCapacity(count); a.reserveCapacity(count)
        for index in 0..<count {
            let alpha = Double(bytes[index * 4 + 3]) / 255
            let shown: SIMD3<Double> = average * (1 - alpha) + (alpha / 255) * colour(index)
            l.append((shown.x + shown.y + shown.z) / 3)
            p.append((shown.x + shown.y) / 2 - shown.z)
            q.append(shown.x - shown.y)
            a.append(alpha)
        }
    }

    /// The hash's bytes.
    func hash() -> [UInt8] {
        let round = ThumbHash.roundedHalfUp
        let longSide = Double(max(width, height))
        let limit = Double(hasAlpha ? 5 : 7)
        let lx = max(1, Int(round(limit * Double(width) / longSide)))
        let ly = max(1, Int(round(limit * Double(height) / longSide)))
        let lightness = transform(l, columns: max(3, lx), rows: max(3, ly))
        let pChannel = transform(p, columns: 3, rows: 3), qChannel = transform(q, columns: 3, rows: 3)
        let alpha = hasAlpha ? transform(a, columns: 5, rows: 5) : nil
        func field(_ value: Double, bits: Int) -> Int { Int(round(value)) & ((1 << bits) - 1) }
        let isLandscape = width > height
        let header24 = field(63 * lightness.dc, bits: 6) | field(31.5 + 31.5 * pChannel.dc, bits: 6) << 6
            | field(31.5 + 31.5 * qChannel.dc, bits: 6) << 12 | field(31 * lightness.scale, bits: 5) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) & 7 | field(63 * pChannel.scale, bits: 6) << 3
            | field(63 * qChannel.scale, bits: 6) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
                             UInt8(header16 & 255), UInt8(header16 >> 8)]
        if let alpha { hash.append(UInt8(field(15 * alpha.dc, bits: 4) | field(15 * alpha.scale, bits: 4) << 4)) }
        var nibble = 0
        for channel in [lightness, pChannel, qChannel] + (alpha.map { [$0] } ?? []) {
            for component in channel.components {
                let value = UInt8(field(15 * component, bits: 4))
                if nibble & 1 == 0 { hash.append(value) } else { hash[hash.count - 1] |= value << 4 }
                nibble += 1
            }
        }
        return hash
    }

    /// A plane's constant component, its varying ones mapped to 0...1 by the largest of them, and that largest.
    private struct Transformed {
        var dc = 0.0
        var components: [Double] = []
        var scale = 0.0
    }

    /// `plane`'s cosine components of ``ThumbHashChannel``'s triangle of `columns` × `rows`.
    private func transform(_ plane: [Double], columns: Int, rows: Int) -> Transformed {
        let coefficients = LowFrequencyDCT.coefficients(of: plane, width: width, height: height, columns: columns,
                                                         rows: rows)
        var result = Transformed()
        ThumbHashChannel.forEachComponent(columns: columns, rows: rows) { cx, cy in
            let f = coefficients[cy * columns + cx] / Double(width * height)
            if cx == 0 && cy == 0 {
                result.dc = f
            } else {
                result.components.append(f)
                result.scale = max(result.scale, abs(f))
            }
        }
        if result.scale > 0 {
            result.components = result.components.map { 0.5 + 0.5 / result.scale * $0 }
        }
        return result
    }
}
