import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// Truncated, corrupt and oversized input: a typed error every time, never a crash or a hang.
@Suite struct AVIFBadInputTests {
    let coder = AVIFCoder()

    @Test(arguments: AVIFFixtures.allAVIF) func truncationsAreBadData(name: String) throws {
        let data = try AVIFFixtures.data(name)
        for length in [0, 1, 11, 24, 40, 100, 300, data.count / 2, data.count - 100, data.count - 1] {
            let cut = data.prefix(length)
            #expect(errorCode { _ = try coder.decode(cut, options: DecodeOptions()) } == .badImageData,
                    "\(name) cut to \(length) bytes")
            // The header may be whole in a cut file; when it is not, the error is typed.
            if let code = errorCode({ _ = try coder.properties(of: cut) }) {
                #expect(code == .badImageData, "\(name) properties cut to \(length) bytes")
            }
        }
    }

    @Test(arguments: AVIFFixtures.allAVIF) func corruptCopiesNeverCrash(name: String) throws {
        let original = [UInt8](try AVIFFixtures.data(name))
        var generator = SplitMix(seed: UInt64(original.count))
        for _ in 0..<40 {
            var bytes = original
            for _ in 0..<4 {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            let data = Data(bytes)
            do {
                let image = try coder.decode(data, options: DecodeOptions())
                #expect(!image.frames.isEmpty)
            } catch {
                #expect(error is ImageError)
            }
            _ = try? coder.properties(of: data)
        }
    }

    @Test func notAVIF() {
        for data in [Data(), Data("hello, world".utf8), Data(repeating: 0, count: 64)] {
            #expect(errorCode { _ = try coder.decode(data, options: DecodeOptions()) } == .badImageData)
            #expect(errorCode { _ = try coder.properties(of: data) } == .badImageData)
        }
    }

    /// 10 000² is over the default limit (Pillow's 89 478 485) and under libavif's own; 40 000² is over both.
    @Test(arguments: [10_000, 40_000]) func hugeDeclaredSizeIsRefusedFromTheHeader(side: Int) throws {
        let data = try AVIFFixtures.withImageSpatialExtents(
            try AVIFFixtures.data("rgb8-lossless.avif"), width: UInt32(side), height: UInt32(side))
        #expect(errorCode { _ = try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
    }

    @Test func pixelLimit() throws {
        let data = try AVIFFixtures.data("rgb8-lossless.avif")
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 48 * 32 - 1))
        #expect(errorCode { _ = try coder.decode(data, options: options) } == .imageTooLarge)
        let exact = DecodeOptions(limits: DecodeLimits(maxPixels: 48 * 32))
        #expect(try coder.decode(data, options: exact).size == PixelSize(width: 48, height: 32))
    }

    /// A container that promises another size than its AV1 data holds: libavif 0.11 scales the decoded
    /// picture to the container's size, so decode and properties still agree; an empty size is refused.
    @Test(arguments: [(64, 32), (16, 16)]) func containerAndAV1SizesDisagree(width: Int, height: Int) throws {
        let data = try AVIFFixtures.withImageSpatialExtents(
            try AVIFFixtures.data("rgb8-lossless.avif"), width: UInt32(width), height: UInt32(height))
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.size == PixelSize(width: width, height: height))
        #expect(try coder.properties(of: data) == ImageProperties(of: image))
    }

    @Test func emptyDeclaredSize() throws {
        let data = try AVIFFixtures.withImageSpatialExtents(
            try AVIFFixtures.data("rgb8-lossless.avif"), width: 0, height: 32)
        #expect(errorCode { _ = try coder.decode(data, options: DecodeOptions()) } == .badImageData)
        #expect(errorCode { _ = try coder.properties(of: data) } == .badImageData)
    }
}
