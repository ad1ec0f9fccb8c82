import CTurboJPEG

/// A TurboJPEG DCT scaling factor, `numerator / denominator`.
struct JPEGScaleFactor: Hashable, CustomStringConvertible {
    var numerator: Int
    var denominator: Int

    static let full = JPEGScaleFactor(numerator: 1, denominator: 1)

    /// The decoded size of `size` at this factor; TurboJPEG's `TJSCALED` rounds up.
    func scaled(_ size: PixelSize) -> PixelSize {
        PixelSize(width: scaled(size.width), height: scaled(size.height))
    }

    func scaled(_ dimension: Int) -> Int { (dimension * numerator + denominator - 1) / denominator }

    var description: String { "\(numerator)/\(denominator)" }
}

/// Which DCT scaling factor to decode a JPEG at for a requested size.
enum JPEGScaling {
    /// The factors worth decoding at, largest first.
    ///
    /// libjpeg-turbo offers every n/8 from 2/1 to 1/8, but only some are fast. Decoding alone, 12 MP, 4:2:0,
    /// quality 85, CPU time on this project's machine: 1/1 51 ms, 7/8 85, 3/4 64, 5/8 56, 1/2 37, 3/8 39,
    /// 1/4 33, 1/8 26 (800×600: 1.9, 3.5, 2.7, 2.4, 1.6, 1.7, 1.4, 1.1 ms). What counts is decode plus the area
    /// downsample that follows, measured interleaved to 256×192 (12 MP / 800×600, ms): 1/1 95 / 5.1,
    /// 7/8 123 / 6.6, 3/4 94 / 5.2, 5/8 82 / 4.3, 1/2 57 / 3.0, 3/8 59 / 2.8, 1/4 50, 1/8 38. So 7/8 is never
    /// worth it, 3/4 gains nothing over a full decode, 5/8 beats a full decode by ~15% when the target allows,
    /// and each smaller factor beats the larger ones: the smallest one that covers the target always wins.
    static let preferredFactors: [JPEGScaleFactor] = {
        let wanted: [JPEGScaleFactor] = [
            .full, JPEGScaleFactor(numerator: 5, denominator: 8), JPEGScaleFactor(numerator: 1, denominator: 2),
            JPEGScaleFactor(numerator: 3, denominator: 8), JPEGScaleFactor(numerator: 1, denominator: 4),
            JPEGScaleFactor(numerator: 1, denominator: 8),
        ]
        var count: Int32 = 0
        guard let available = tjGetScalingFactors(&count), count > 0 else { return [.full] }
        let offered = Set((0..<Int(count)).map {
            JPEGScaleFactor(numerator: Int(available[$0].num), denominator: Int(available[$0].denom))
        })
        return wanted.filter { $0 == .full || offered.contains($0) }
    }()

    /// The smallest preferred factor whose output still covers `target` in both axes; full size without a target.
    static func factor(for source: PixelSize, target: PixelSize?) -> JPEGScaleFactor {
        guard let target else { return .full }
        var best = JPEGScaleFactor.full
        for factor in preferredFactors {
            let scaled = factor.scaled(source)
            guard scaled.width >= target.width, scaled.height >= target.height else { break }
            best = factor
        }
        return best
    }
}
