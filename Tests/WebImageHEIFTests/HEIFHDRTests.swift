import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageHEIF

/// A PQ HEIC whose mastering display peaks at 1 500 cd/m² is shown from that peak by the library's one tone
/// mapper, held to a reference written from the standards (`HDRReference`).
@Suite struct HEIFHDRTests {
    @Test func theMasteringDisplaysPeakSetsTheToneMapping() throws {
        let heic = try HEIFFixtures.data("pq-mdcv.heic")
        let properties = try HEIFCoder().properties(of: heic)
        #expect(properties.colorSpace == .bt2100PQ)
        #expect(properties.colorProfile?.codePoints?.contentPeak == 1_500)
        let shown = try HEIFCoder().decode(heic, options: DecodeOptions()).pixels.bytes
        let error = HDRReference.difference(shown, peak: 1_500)
        #expect(error.mean <= 1 && error.p99 <= 6, "\(error)")
    }
}
