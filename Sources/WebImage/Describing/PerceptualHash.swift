import Foundation

/// A perceptual hash (the DCT "pHash"): 64 bits that stay nearly the same when an image is resized, recompressed
/// or slightly retouched, so that the number of differing bits between two hashes (their Hamming distance,
/// ``distance(_:_:)``) tells near-duplicates apart from different images: a few bits for the same picture, about
/// 32 for unrelated ones.
///
/// The image's lightness (ITU-R BT.601 weights, as an 8-bit grey image is usually made) is scaled to 32 × 32
/// pixels; of its two-dimensional DCT, the 8 × 8 lowest frequencies are compared with their median, each bit set
/// where a frequency is above it, row by row (vertical frequency first), the first bit the most significant.
/// This is the layout common pHash implementations share, so hashes compare with theirs; ours and theirs differ
/// only where their resizing filters round differently (a bit or two). Alpha is ignored.
public enum PerceptualHash {
    /// The side of the grey image the frequencies are taken from.
    static let side = 32
    /// The lowest frequencies kept on each axis.
    static let frequencies = 8

    /// The 64-bit perceptual hash of `pixels`.
    public static func hash(_ pixels: PixelBuffer) throws -> UInt64 {
        // Grey first, then resized, as the common implementations do: alpha plays no part, even in the filter.
        let opaqueGrey = try PixelBuffer(width: pixels.width, height: pixels.height) { destination in
            pixels.withUnsafeBytes { source in
                for index in 0..<pixels.width * pixels.height {
                    let value = Luma.of(source[index * 4], source[index * 4 + 1], source[index * 4 + 2])
                    destination[index * 4] = value
                    destination[index * 4 + 1] = value
                    destination[index * 4 + 2] = value
                    destination[index * 4 + 3] = 255
                }
            }
        }
        let small = opaqueGrey.size == PixelSize(width: side, height: side)
            ? opaqueGrey : try opaqueGrey.resized(to: PixelSize(width: side, height: side), filter: .lanczos3)
        let grey = small.withUnsafeBytes { bytes in (0..<side * side).map { Double(bytes[$0 * 4]) } }
        let lowest = LowFrequencyDCT.coefficients(of: grey, width: side, height: side, columns: frequencies,
                                                  rows: frequencies)
        let sorted = lowest.sorted()
        let median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        return lowest.reduce(UInt64(0)) { bits, value in bits << 1 | (value > median ? 1 : 0) }
    }

    /// The number of bits in which two hashes differ (0 to 64).
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// `hash` as 16 lower-case hexadecimal digits, the way pHashes are usually written.
    public static func hexString(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
