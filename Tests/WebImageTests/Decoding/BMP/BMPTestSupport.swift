import CoderTestSupport
import Foundation
@testable import WebImage

/// Helpers of the BMP and ICO tests; their corrupt copies come from ``SplitMix``.
enum BMPTestSupport {
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
