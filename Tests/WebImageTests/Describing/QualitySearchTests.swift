import Foundation
import Testing
@testable import WebImage

/// The encoders' quality search: the lowest JPEG quality that reaches an SSIM, one within a DSSIM's allowed error, the
/// highest that fits a byte budget,
/// checked against encodes one step away, and the ends of the range when a target cannot be met.
@Suite struct QualitySearchTests {
    private let coders = ImageCoders.shared

    private func image() throws -> Image { Image(pixels: try PlaceholderReferences.pixels("photo.png")) }

    private func jpeg(_ image: Image, quality: Int) throws -> (bytes: Int, ssim: Double) {
        let data = try coders.encode(image, as: .jpeg, options: EncodeOptions(quality: Double(quality) / 100))
        let decoded = try coders.decode(data).pixels
        return (data.count, try StructuralSimilarity.index(image.pixels, decoded))
    }

    @Test func anSSIMTargetGetsTheLowestQualityThatReachesIt() throws {
        let image = try image()
        let result = try coders.encode(image, as: .jpeg, target: .ssim(0.95))
        let quality = Int((result.quality * 100).rounded())
        #expect(result.ssim >= 0.95)
        #expect(quality > 10 && quality < 95)
        #expect(try jpeg(image, quality: quality).ssim == result.ssim)
        #expect(try jpeg(image, quality: quality - 1).ssim < 0.95)
        #expect(result.encodeCount <= 8)
    }

    @Test func aByteBudgetGetsTheHighestQualityThatFits() throws {
        let image = try image()
        let budget = try jpeg(image, quality: 60).bytes + 40
        let result = try coders.encode(image, as: .jpeg, target: .bytes(budget))
        let quality = Int((result.quality * 100).rounded())
        #expect(result.data.count <= budget)
        #expect(quality >= 60)
        #expect(try jpeg(image, quality: quality + 1).bytes > budget)
        #expect(result.encodeCount <= 8)
    }

    @Test func aDSSIMTargetStopsAtTheFirstQualityWithinTheAllowedError() throws {
        let image = try image()
        let result = try coders.encode(image, as: .jpeg, target: .dssim(0.02, allowedError: 0.002),
                                       qualityRange: 10...95)
        #expect(abs(result.dssim - 0.02) <= 0.002, "\(result.dssim) at \(result.quality)")
        let quality = Int((result.quality * 100).rounded())
        #expect(abs(EncodeTarget.dssim(ofSSIM: try jpeg(image, quality: quality).ssim) - result.dssim) < 1e-12)
        #expect(result.encodeCount <= 7)  // log2 of 86 qualities, at most
        // No quality within a tiny error: the lowest whose DSSIM is at most the target.
        let strict = try coders.encode(image, as: .jpeg, target: .dssim(0.02, allowedError: 0), qualityRange: 10...95)
        let strictQuality = Int((strict.quality * 100).rounded())
        #expect(strict.dssim <= 0.02)
        #expect(EncodeTarget.dssim(ofSSIM: try jpeg(image, quality: strictQuality - 1).ssim) > 0.02)
        // Out of reach at the top of the range: the highest quality.
        let reach = try coders.encode(image, as: .jpeg, target: .dssim(0, allowedError: 0), qualityRange: 40...70)
        #expect(reach.quality == 0.7)
    }

    @Test func unreachableTargetsGiveTheNearestEndAndBadOnesAreRefused() throws {
        let image = try image()
        let perfect = try coders.encode(image, as: .jpeg, target: .ssim(1), qualityRange: 40...70)
        #expect(perfect.quality == 0.7 && perfect.ssim < 1)
        let tiny = try coders.encode(image, as: .jpeg, target: .bytes(10), qualityRange: 40...70)
        #expect(tiny.quality == 0.4 && tiny.data.count > 10)
        for (target, range) in [(EncodeTarget.ssim(1.5), 10...95), (.bytes(0), 10...95), (.ssim(0.9), 0...101)] {
            do {
                _ = try coders.encode(image, as: .jpeg, target: target, qualityRange: range)
                Issue.record("searched \(target) in \(range)")
            } catch let error as ImageError {
                #expect(error.code == .invalidParameter)
            }
        }
    }
}
