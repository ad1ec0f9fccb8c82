/// The kernel used to resample pixels to another size.
public enum ResamplingFilter: String, Sendable, CaseIterable, Codable {
    /// Area averaging: every source pixel counts by how much of it an output pixel covers. Sharp, fast and
    /// alias-free for reductions; the thumbnail decoders use it. Upscaling with it repeats pixels.
    case area
    /// Triangle filter (linear interpolation, widened when reducing). Smooth; good for upscaling.
    case bilinear
    /// Lanczos with three lobes: the sharpest of the three for reductions, at about twice bilinear's cost.
    case lanczos3

    /// How far the kernel reaches on either side, in source pixels at scale 1.
    var support: Double {
        switch self {
        case .area: 0.5
        case .bilinear: 1
        case .lanczos3: 3
        }
    }

    /// The kernel's weight at distance `x`.
    func weight(_ x: Double) -> Double {
        switch self {
        case .area:
            return x >= -0.5 && x < 0.5 ? 1 : 0
        case .bilinear:
            let distance = abs(x)
            return distance < 1 ? 1 - distance : 0
        case .lanczos3:
            let distance = abs(x)
            guard distance < 3 else { return 0 }
            guard distance > 1e-8 else { return 1 }
            let piX = Double.pi * distance
            return 3 * sin(piX) * sin(piX / 3) / (piX * piX)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// For one axis: which source pixels each output pixel reads, and with what fixed-point weights.
struct ResamplingWeights {
    /// Fractional bits of a weight: 1 << 16 is a weight of 1.
    static let precisionBits: Int32 = 16
    /// The most source pixels any output pixel reads.
    let taps: Int
    /// First source index read by each output pixel.
    let starts: [Int]
    /// Weights, `taps` per output pixel; unused slots are 0.
    let weights: [Int32]

    init(sourceLength: Int, outputLength: Int, filter: ResamplingFilter) {
        let scale = Double(sourceLength) / Double(outputLength)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let taps = min(Int((support * 2).rounded(.up)) + 2, sourceLength)
        var starts = [Int](repeating: 0, count: outputLength)
        var weights = [Int32](repeating: 0, count: outputLength * taps)
        var row = [Double](repeating: 0, count: taps)
        let one = Double(1 << Self.precisionBits)
        for output in 0..<outputLength {
            let center = (Double(output) + 0.5) * scale
            var first = max(0, Int((center - support).rounded(.down)))
            let end = min(sourceLength, Int((center + support).rounded(.up)))
            first = min(first, max(0, end - taps))
            var total = 0.0
            for tap in 0..<taps {
                let source = first + tap
                var weight = 0.0
                if source < end {
                    if filter == .area {
                        // Exact overlap of [source, source+1) with the output pixel's footprint.
                        let left = center - scale / 2, right = center + scale / 2
                        weight = max(0, min(Double(source + 1), right) - max(Double(source), left))
                        if scale < 1 { weight = Double(source) <= center && center < Double(source + 1) ? 1 : 0 }
                    } else {
                        weight = filter.weight((Double(source) + 0.5 - center) / filterScale)
                    }
                }
                row[tap] = weight
                total += weight
            }
            if total == 0 {
                // Upscaling with the area filter can land between samples: take the nearest one.
                row = row.map { _ in 0 }
                row[min(max(Int(center) - first, 0), taps - 1)] = 1
                total = 1
            }
            var fixedTotal: Int32 = 0
            var largest = 0
            for tap in 0..<taps {
                let fixed = Int32((row[tap] / total * one).rounded())
                weights[output * taps + tap] = fixed
                fixedTotal += fixed
                if abs(row[tap]) > abs(row[largest]) { largest = tap }
            }
            // Make the weights sum to exactly one so flat areas stay exactly flat.
            weights[output * taps + largest] += Int32(one) - fixedTotal
            starts[output] = first
        }
        self.taps = taps
        self.starts = starts
        self.weights = weights
    }
}
