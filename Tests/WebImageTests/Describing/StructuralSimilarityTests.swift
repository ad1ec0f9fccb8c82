import Foundation
import Testing
@testable import WebImage

/// SSIM against scikit-image's `structural_similarity` (Gaussian window, σ 1.5, population variances) on a photo
/// and two altered copies of it.
@Suite struct StructuralSimilarityTests {
    @Test(arguments: ["photo-jpeg30", "photo-blurred"])
    func indicesAreScikitImages(copy: String) throws {
        let expected = try #require(try PlaceholderReferences.load().ssim[copy])
        let photo = try PlaceholderReferences.pixels("photo.png"), other = try PlaceholderReferences.pixels("\(copy).png")
        #expect(abs(try StructuralSimilarity.index(photo, other) - expected) < 1e-6)
        #expect(abs(try StructuralSimilarity.index(other, photo) - expected) < 1e-6)
        #expect(try StructuralSimilarity.index(photo, photo) == 1)
    }

    @Test func differentSizesAndImagesUnderTheWindowAreInvalid() throws {
        let small = try PixelBuffer(width: 10, height: 40, filledWith: RGBA(1, 2, 3))
        let other = try PixelBuffer(width: 40, height: 10, filledWith: RGBA(1, 2, 3))
        for (a, b) in [(small, small), (small, other)] {
            do {
                _ = try StructuralSimilarity.index(a, b)
                Issue.record("measured \(a.size) against \(b.size)")
            } catch let error as ImageError {
                #expect(error.code == .invalidParameter)
            }
        }
    }
}
