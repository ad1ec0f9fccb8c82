import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

/// A lossy PQ JPEG XL with a 2 182-nit intensity target is shown from that peak by the library's one tone mapper
/// (not by libjxl's conversion to sRGB, which maps the intensity target to SDR white and showed it 2.8× too dark),
/// held to a reference written from the standards (`HDRReference`).
@Suite struct JXLHDRTests {
    @Test func theIntensityTargetSetsTheToneMapping() throws {
        let jxl = try JXLFixtures.data("pq-2182")
        let properties = try JXLCoder().properties(of: jxl)
        #expect(properties.colorSpace == .bt2100PQ)
        #expect(properties.colorProfile?.codePoints?.contentPeak == 2_182)
        let shown = try JXLCoder().decode(jxl, options: DecodeOptions()).pixels.bytes
        let error = HDRReference.difference(shown, peak: 2_182)
        // Lossy XYB: a few pixels at the edge of sRGB's gamut, where a small coding error moves a clipped channel.
        #expect(error.mean <= 1 && error.p99 <= 8, "\(error)")
        let expected = (0..<32).flatMap { y in
            (0..<64).flatMap { x in HDRReference.sRGB(pq: HDRReference.signal(x: x, y: y), peak: 2_182) + [255] }
        }
        #expect(abs(HDRReference.meanLevel(shown) - HDRReference.meanLevel(expected)) <= 1.5)
    }
}
