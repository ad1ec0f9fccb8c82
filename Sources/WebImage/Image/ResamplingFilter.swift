#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel used to resample pixels to another size.
public enum ResamplingFilter: String, Sendable, CaseIterable, Codable {
    /// Area averaging: every source pixel counts by how much of it an output pixel covers. Sharp, fast and
    /// alias-free for reductions; the thumbnail decoders use it. Upscaling with it repeats pixels.
    case area
    /// Triangle filter (linear interpolation, widened when reducing). Smooth; good for upscaling.
    case bilinear
    /// Cubic convolution (Keys, a = −0.5, as Pillow's BICUBIC): smooth and sharper than bilinear; the default
    /// for enlarging.
    case bicubic
    /// Lanczos with three lobes: the sharpest, at about twice bilinear's cost; the default for reducing.
    case lanczos3

    /// How far the kernel reaches on either side, in source pixels at scale 1.
    var support: Double {
        switch self {
        case .area: 0.5
        case .bilinear: 1
        case .bicubic: 2
        case .lanczos3: 3
        }
    }

    /// The kernel's weight at distance `x`.
    func weight(_ x: Double) -> Double {
        let distance = abs(x)
        switch self {
        case .area:
            return x >= -0.5 && x < 0.5 ? 1 : 0
        case .bilinear:
            return distance < 1 ? 1 - distance : 0
        case .bicubic:
            let a = -0.5
            if distance < 1 { return ((a + 2) * distance - (a + 3)) * distance * distance + 1 }
            if distance < 2 { return ((a * distance - 5 * a) * distance + 8 * a) * distance - 4 * a }
            return 0
        case .lanczos3:
            guard distance < 3 else { return 0 }
            guard distance > 1e-8 else { return 1 }
            let piX = Double.pi * distance
            return 3 * sin(piX) * sin(piX / 3) / (piX * piX)
        }
    }
}

/// A fixed-point weight type for the resampler's passes: `Int16` with 14 fractional bits for ordinary windows
/// (fast: pairs of 16-bit products are what SSE2's `pmaddwd` and NEON's `smlal` compute), `Int32` with 20 for
/// the very wide windows of large reductions, where 14 bits would leave visible rounding error.
protocol ResamplingWeight: FixedWidthInteger, SignedInteger, Sendable {
    /// Fractional bits: `1 << precisionBits` is a weight of one.
    static var precisionBits: Int32 { get }
}

extension Int16: ResamplingWeight {
    static var precisionBits: Int32 { 14 }
}

extension Int32: ResamplingWeight {
    // 255 × (sum of |weights| < 2) × 2^20 stays below Int32.max.
    static var precisionBits: Int32 { 20 }
}

/// For one axis: which source pixels each output pixel reads, and with what fixed-point weights.
struct ResamplingWeights {
    /// The weights in the precision the window width calls for.
    enum Storage {
        case narrow([Int16])
        case wide([Int32])
    }

    /// The widest window that uses 14-bit weights. Each weight is off by less than one unit, so a window of
    /// `n` taps is off by at most `n × 255 / 2^14` levels in the worst case: 2 for 128 taps (Lanczos-3
    /// reducing up to 21×, area up to 126×), and far less on real images, whose errors do not line up.
    static let narrowTapLimit = 128

    /// Room reserved per output pixel in the weights (the widest window).
    let taps: Int
    /// First source index read by each output pixel.
    let starts: [Int]
    /// How many source pixels each output pixel reads (zero weights trimmed from both ends).
    let counts: [Int]
    /// Weights, `taps` slots per output pixel, the first `counts[i]` of them used, then zeros.
    let storage: Storage

    /// Weights that map the source span `offset ..< offset + span` (in source pixels, fractional allowed) onto
    /// `outputLength` pixels. At the source's edges an enlarging kernel repeats the edge pixel, a reducing one
    /// is cut and renormalised.
    init(sourceLength: Int, outputLength: Int, filter: ResamplingFilter, offset: Double = 0, span: Double? = nil) {
        let span = span ?? Double(sourceLength)
        let scale = span / Double(outputLength)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let taps = max(1, min(Int((support * 2).rounded(.up)) + 2, sourceLength))
        let narrow = taps <= Self.narrowTapLimit
        let repeatsEdges = scale <= 1
        let one = Double(1 << (narrow ? Int16.precisionBits : Int32.precisionBits))
        var starts = [Int](repeating: 0, count: outputLength)
        var counts = [Int](repeating: 0, count: outputLength)
        var weights = [Int32](repeating: 0, count: outputLength * taps)
        var row = [Double](repeating: 0, count: taps)
        var fixed = [Int32](repeating: 0, count: taps)
        for output in 0..<outputLength {
            let center = offset + (Double(output) + 0.5) * scale
            // The kernel's reach, then the pixels it can touch. Enlarging, samples beyond an edge repeat the
            // edge pixel (their weights fold onto it), which keeps borders from overshooting. Reducing, the
            // window is cut at the edge and renormalised (as Pillow does): folding a reach of many pixels onto
            // one edge pixel would overweight it.
            let reachStart = Int((center - support).rounded(.down)), reachEnd = Int((center + support).rounded(.up))
            let last = min(sourceLength - 1, max(reachEnd - 1, 0))
            let first = max(0, min(reachStart, last - taps + 1))
            for tap in 0..<taps { row[tap] = 0 }
            var total = 0.0
            for source in reachStart...max(reachStart, reachEnd - 1) {
                var weight = 0.0
                if filter == .area {
                    if scale < 1 {
                        // Enlarging: each output pixel takes the source pixel its centre falls in.
                        weight = Double(source) <= center && center < Double(source + 1) ? 1 : 0
                    } else {
                        // Exact overlap of [source, source+1) with the output pixel's footprint.
                        let left = center - scale / 2, right = center + scale / 2
                        weight = max(0, min(Double(source + 1), right) - max(Double(source), left))
                    }
                } else {
                    weight = filter.weight((Double(source) + 0.5 - center) / filterScale)
                }
                guard repeatsEdges || (source >= 0 && source < sourceLength) else { continue }
                let tap = min(max(source, 0), sourceLength - 1) - first
                guard tap >= 0 && tap < taps else { continue }
                row[tap] += weight
                total += weight
            }
            if total == 0 {
                // The footprint missed every sample (area enlarging at the edge): take the nearest one.
                for tap in 0..<taps { row[tap] = 0 }
                row[min(max(Int(center.rounded(.down)) - first, 0), taps - 1)] = 1
                total = 1
            }
            // Round the running sum rather than each weight: every weight is off by less than one unit, the
            // errors do not pile up, and the weights add up to exactly one, so flat areas stay exactly flat.
            var cumulative = 0.0, previous: Int32 = 0
            var used = 0..<0
            for tap in 0..<taps {
                cumulative += row[tap] / total
                let rounded = tap == taps - 1 ? Int32(one) : Int32((cumulative * one).rounded())
                fixed[tap] = rounded - previous
                previous = rounded
                if fixed[tap] != 0 { used = used.isEmpty ? tap..<tap + 1 : used.lowerBound..<tap + 1 }
            }
            // Store the used weights from the first slot, so each window starts at its first non-zero tap.
            for tap in used { weights[output * taps + tap - used.lowerBound] = fixed[tap] }
            starts[output] = first + used.lowerBound
            counts[output] = used.count
        }
        self.taps = taps
        self.starts = starts
        self.counts = counts
        storage = narrow ? .narrow(weights.map { Int16(clamping: $0) }) : .wide(weights)
    }
    /// Source pixels read by at least one output pixel.
    var sourceRange: Range<Int> {
        var lower = Int.max, upper = 0
        for index in starts.indices {
            lower = min(lower, starts[index])
            upper = max(upper, starts[index] + counts[index])
        }
        return lower..<upper
    }

    /// Multiply-adds per line: the cost of resampling one line along this axis.
    var workPerLine: Int { counts.reduce(0, +) }
}
