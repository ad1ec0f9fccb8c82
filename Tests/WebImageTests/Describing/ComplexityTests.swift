import Foundation
import Testing
import WebImage

/// ``PixelBuffer/complexity``: the share of neighbouring pixels that differ, in tenths of a percent.
@Suite struct ComplexityTests {
    @Test func flatHalfAndNoisyPicturesMeasureWhatTheyAre() throws {
        #expect(try PixelBuffer(width: 64, height: 48, filledWith: RGBA(9, 9, 9)).complexity == 0)
        // Two halves: only the 48 pairs across the seam differ, of 63×48 + 64×47.
        var bytes = [UInt8]()
        for _ in 0..<48 { for x in 0..<64 { bytes += x < 32 ? [255, 0, 0, 255] : [0, 0, 255, 255] } }
        let halves = try PixelBuffer(width: 64, height: 48, rgba: bytes)
        #expect(abs(halves.complexity - 10 * 48 / Double(63 * 48 + 64 * 47)) < 1e-12)
        // Every pixel unlike its neighbours: 10. A change of alpha alone counts.
        var state: UInt32 = 7
        let noise = (0..<64 * 48 * 4).map { index -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 24)
        }
        #expect(try PixelBuffer(width: 64, height: 48, rgba: noise).complexity > 9.9)
        let alpha = (0..<4 * 4).flatMap { index in [UInt8](arrayLiteral: 5, 5, 5, index % 2 == 0 ? 255 : 254) }
        #expect(try PixelBuffer(width: 4, height: 4, rgba: alpha).complexity == 5)  // every pair across, none down
        #expect(try PixelBuffer(width: 1, height: 1, filledWith: RGBA(1, 2, 3)).complexity == 0)
    }
}
