import Foundation
import Testing
@testable import WebImage

/// Perceptual hashes against ImageHash's `phash` (Python, SciPy's DCT): bit for bit on an image already at the
/// hash's 32 × 32, within a few bits where the two sides' resizing filters differ.
@Suite struct PerceptualHashTests {
    private func reference(_ name: String) throws -> UInt64 {
        let hex = try #require(try PlaceholderReferences.load().phash[name])
        return try #require(UInt64(hex, radix: 16))
    }

    @Test func anImageAtTheHashesSizeHashesExactlyAsTheReference() throws {
        let hash = try PerceptualHash.hash(try PlaceholderReferences.pixels("grey-32.png"))
        #expect(PerceptualHash.hexString(hash) == (try PlaceholderReferences.load().phash["grey-32"]))
    }

    @Test(arguments: ["photo", "alpha"])
    func resizedImagesAreWithinAFewBitsOfTheReference(image: String) throws {
        let hash = try PerceptualHash.hash(try PlaceholderReferences.pixels("\(image).png"))
        #expect(PerceptualHash.distance(hash, try reference(image)) <= 4)
    }

    @Test func theSamePictureIsNearAndAnotherIsFar() throws {
        let photo = try PlaceholderReferences.pixels("photo.png")
        let hash = try PerceptualHash.hash(photo)
        let larger = try photo.resized(to: PixelSize(width: 250, height: 177), filter: .bilinear)
        let jpeg = try ImageCoders.shared.decode(
            try ImageCoders.shared.encode(Image(pixels: photo), as: .jpeg, options: EncodeOptions(quality: 0.5))).pixels
        #expect(PerceptualHash.distance(hash, try PerceptualHash.hash(larger)) <= 4)
        #expect(PerceptualHash.distance(hash, try PerceptualHash.hash(jpeg)) <= 4)
        let other = try PerceptualHash.hash(try PlaceholderReferences.pixels("alpha.png"))
        #expect(PerceptualHash.distance(hash, other) >= 16)
        #expect(PerceptualHash.hexString(1) == "0000000000000001")
    }
}
