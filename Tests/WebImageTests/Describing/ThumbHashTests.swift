import Foundation
import Testing
@testable import WebImage

/// ThumbHash bytes, pictures, average colours and aspect ratios against a port of ThumbHash's reference
/// implementation, on an opaque photo and a transparent image.
@Suite struct ThumbHashTests {
    @Test(arguments: ["photo", "alpha"])
    func hashesAreTheReferenceEncodersBytes(image: String) throws {
        let reference = try #require(try PlaceholderReferences.load().thumbhash[image])
        let hash = try ThumbHash.encode(try PlaceholderReferences.pixels("\(image).png"))
        #expect(hash == PlaceholderReferences.bytes(hex: reference.hash))
    }

    @Test(arguments: ["photo", "alpha"])
    func picturesAverageAndRatioAreTheReferenceDecoders(image: String) throws {
        let reference = try #require(try PlaceholderReferences.load().thumbhash[image])
        let hash = PlaceholderReferences.bytes(hex: reference.hash)
        let picture = try ThumbHash.decode(hash)
        #expect([picture.width, picture.height] == reference.decodedSize)
        // The port rounds where the reference truncates: one level apart at most.
        let referencePicture = try PlaceholderReferences.pixels("\(image)-thumbhash.png")
        #expect(PlaceholderReferences.largestDifference(picture, referencePicture) <= 1)
        #expect(abs(try ThumbHash.aspectRatio(of: hash) - reference.aspectRatio) < 1e-6)
        let average = try ThumbHash.averageColor(of: hash)
        let expected = reference.average.map { UInt8(($0 * 255).rounded()) }
        #expect([average.r, average.g, average.b, average.a] == expected)
    }

    @Test func largeImagesAreScaledDownToTheHashesSizeFirst() throws {
        let photo = try PlaceholderReferences.pixels("photo.png")
        let large = try photo.resized(to: PixelSize(width: photo.width * 4, height: photo.height * 4), filter: .bilinear)
        let hash = try ThumbHash.encode(large)
        let direct = try ThumbHash.encode(photo)
        #expect(hash.count == direct.count)
        #expect(try ThumbHash.aspectRatio(of: hash) == ThumbHash.aspectRatio(of: direct))
        #expect(PlaceholderReferences.largestDifference(try ThumbHash.decode(hash), try ThumbHash.decode(direct)) <= 12)
    }

    @Test func anOpaqueImageHasNoAlphaByteAndDecodesOpaque() throws {
        let hash = try ThumbHash.encode(try PixelBuffer(width: 30, height: 60, filledWith: RGBA(200, 40, 90)))
        #expect(hash[2] & 0x80 == 0)
        let picture = try ThumbHash.decode(hash)
        #expect(picture.width < picture.height)
        #expect(!picture.containsTransparency)
        let centre = picture[picture.width / 2, picture.height / 2]
        #expect(abs(Int(centre.r) - 200) <= 3 && abs(Int(centre.g) - 40) <= 3 && abs(Int(centre.b) - 90) <= 3)
    }

    @Test func shortOrInconsistentHashesAreBadImageData() throws {
        let good = try ThumbHash.encode(try PlaceholderReferences.pixels("alpha.png"))
        var noComponents = good
        noComponents[3] &= ~7
        for bad in [[], Array(good.prefix(4)), Array(good.prefix(5)), Array(good.dropLast()), noComponents] {
            do {
                _ = try ThumbHash.decode(bad)
                Issue.record("decoded \(bad)")
            } catch let error as ImageError {
                #expect(error.code == .badImageData)
            }
        }
    }
}
