import Foundation

/// Measures how far decoded pixels are from a reference, for lossy formats where exact equality is not expected.
enum PixelComparison {
    /// The largest difference of any channel of any pixel; `Int.max` when the lengths differ.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return .max }
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Peak signal-to-noise ratio in dB over the channels selected by `channels` (0 = R … 3 = A) of RGBA bytes;
    /// infinity for identical pixels, 0 when the lengths differ.
    static func psnr(_ a: [UInt8], _ b: [UInt8], channels: Set<Int> = [0, 1, 2]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var squared = 0.0
        var count = 0
        for index in a.indices where channels.contains(index % 4) {
            let difference = Double(a[index]) - Double(b[index])
            squared += difference * difference
            count += 1
        }
        guard squared > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (squared / Double(count)))
    }
}
