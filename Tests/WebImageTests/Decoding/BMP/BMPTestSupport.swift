import Foundation
@testable import WebImage

/// A small deterministic random generator (SplitMix64) for the BMP and ICO corruption tests.
struct BMPTestRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// How many different RGBA values `pixels` holds.
    static func distinctColours(_ pixels: PixelBuffer) -> Int {
        var seen = Set<UInt32>()
        pixels.withUnsafeBytes { bytes in
            for offset in stride(from: 0, to: bytes.count, by: 4) {
                seen.insert(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            }
        }
        return seen.count
    }
}
