import Foundation
import Testing
@testable import WebImage

/// BlurHash strings and pictures against the BlurHash authors' C implementation's, on a photo and on a
/// transparent image, for several component counts.
@Suite struct BlurHashTests {
    @Test(arguments: ["photo", "alpha"])
    func hashesAreTheReferenceEncodersStrings(image: String) throws {
        let references = try PlaceholderReferences.load()
        let pixels = try PlaceholderReferences.pixels("\(image).png")
        let expected = try #require(references.blurhash[image])
        #expect(expected.count == 4)
        for (components, hash) in expected {
            let counts = components.split(separator: "x").map { Int($0)! }
            let ours = try BlurHash.encode(pixels, componentsX: counts[0], componentsY: counts[1])
            #expect(ours == hash, "\(image) \(components)")
        }
    }

    @Test(arguments: ["photo", "alpha"])
    func picturesAreTheReferenceDecodersToWithinOneLevel(image: String) throws {
        let hash = try #require(try PlaceholderReferences.load().blurhash[image]?["4x3"])
        let square = try BlurHash.decode(hash, width: 32, height: 32)
        let reference = try PlaceholderReferences.pixels("\(image)-blurhash-4x3-32x32.png")
        #expect(PlaceholderReferences.largestDifference(square, reference) <= 1)
        let punched = try BlurHash.decode(hash, width: 20, height: 30, punch: 2)
        let punchedReference = try PlaceholderReferences.pixels("\(image)-blurhash-4x3-20x30-punch2.png")
        #expect(PlaceholderReferences.largestDifference(punched, punchedReference) <= 1)
        #expect(PlaceholderReferences.largestDifference(punched, try BlurHash.decode(hash, width: 20, height: 30)) > 0)
        #expect(punched.bytes.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    }

    @Test func oneComponentIsTheAverageColourInLinearLight() throws {
        // Half black, half white averages to linear 0.5, which is 188 in sRGB (not 128).
        let pixels = try PixelBuffer(width: 2, height: 1, rgba: [0, 0, 0, 255, 255, 255, 255, 255])
        let hash = try BlurHash.encode(pixels, componentsX: 1, componentsY: 1)
        #expect(hash.count == 6)
        let picture = try BlurHash.decode(hash, width: 3, height: 2)
        #expect(picture[2, 1] == RGBA(188, 188, 188))
    }

    @Test func badComponentCountsAndMalformedHashesAreTypedErrors() throws {
        let pixels = try PixelBuffer(width: 4, height: 4, filledWith: RGBA(10, 20, 30))
        for (x, y) in [(0, 3), (4, 10), (-1, 1)] {
            #expect(throws: ImageError.self) { try BlurHash.encode(pixels, componentsX: x, componentsY: y) }
            do {
                _ = try BlurHash.encode(pixels, componentsX: x, componentsY: y)
            } catch let error as ImageError {
                #expect(error.code == .invalidParameter)
            }
        }
        let good = try BlurHash.encode(pixels, componentsX: 4, componentsY: 3)
        let malformed = ["LgFs0+bHb3oMl}aza}az\"0j[a}jt", "ñgFs0+bHb3oMl}aza}azp0j[a}jt"]
        for bad in ["", "L", String(good.dropLast()), good + "0"] + malformed {
            #expect(code { try BlurHash.decode(bad, width: 8, height: 8) } == .badImageData, "\(bad)")
        }
        #expect(code { try BlurHash.decode(good, width: 0, height: 8) } == .invalidParameter)
        #expect(code { try BlurHash.decode(good, width: 8, height: 8, punch: 0) } == .invalidParameter)
        #expect(code { try BlurHash.decode(good, width: Int.max / 2, height: 4) } == .imageTooLarge)
        #expect(code { try BlurHash.decode(good, width: 100_000, height: 100_000) } == .imageTooLarge)
    }

    private func code(_ body: () throws -> PixelBuffer) -> ImageError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? ImageError)?.code
        }
    }
}
