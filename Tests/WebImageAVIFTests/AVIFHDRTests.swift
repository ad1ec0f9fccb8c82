import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// A PQ AVIF is shown as the library's one tone mapper shows every format's HDR: BT.2390 from the content's peak
/// to SDR reference white, held to a reference written from the standards (`HDRReference`).
@Suite struct AVIFHDRTests {
    @Test func aPQImageWithoutALightLevelIsMappedFromAThousandNits() throws {
        let avif = try AVIFFixtures.data("pq.avif")
        let properties = try AVIFCoder().properties(of: avif)
        #expect(properties.colorSpace == .bt2100PQ)
        #expect(properties.colorProfile?.codePoints?.contentPeak == nil)
        let shown = try AVIFCoder().decode(avif, options: DecodeOptions()).pixels.bytes
        let error = HDRReference.difference(shown, peak: 1_000)
        #expect(error.mean <= 1 && error.p99 <= 6, "\(error)")
    }

    @Test func theContentLightLevelSetsThePeak() throws {
        let avif = try AVIFFixtures.data("pq-clli.avif")
        let properties = try AVIFCoder().properties(of: avif)
        #expect(properties.colorProfile?.codePoints?.contentPeak == 4_000)
        let shown = try AVIFCoder().decode(avif, options: DecodeOptions()).pixels.bytes
        let error = HDRReference.difference(shown, peak: 4_000)
        #expect(error.mean <= 1 && error.p99 <= 6, "\(error)")
        // Brighter content keeps its highlights apart: the same signals shown from a 1 000-nit peak differ.
        #expect(HDRReference.difference(shown, peak: 1_000).mean >= 4)
    }
}
