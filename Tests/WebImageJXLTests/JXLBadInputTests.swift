import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageJXL

@Suite struct JXLBadInputTests {
    @Test func hugeDeclaredSizeIsRefusedFromTheHeader() {
        let code = errorCode { _ = try JXLCoder().decode(hugeCodestreamHeader(side: 1 << 20), options: DecodeOptions()) }
        #expect(code == .imageTooLarge)
    }

    @Test func pixelLimitIsCheckedBeforeDecoding() {
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 64 * 48 - 1))
        #expect(errorCode { _ = try JXLFixtures.decode("still-lossless", options) } == .imageTooLarge)
        #expect(errorCode { _ = try JXLFixtures.decode("still-lossless", DecodeOptions(limits: DecodeLimits(maxPixels: 64 * 48))) } == nil)
    }

    @Test func frameLimitsAreCheckedAsFramesArrive() {
        let frames = DecodeOptions(limits: DecodeLimits(maxFrames: 2))
        #expect(errorCode { _ = try JXLFixtures.decode("anim", frames) } == .imageTooLarge)
        let total = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 32 * 24 * 2))
        #expect(errorCode { _ = try JXLFixtures.decode("anim", total) } == .imageTooLarge)
        // One frame asked for: one frame counted.
        let first = DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 1))
        #expect(errorCode { _ = try JXLFixtures.decode("anim", first) } == nil)
    }

    @Test(arguments: JXLFixtures.all)
    func truncationsAreBadImageData(name: String) throws {
        let data = try JXLFixtures.data(name)
        let lengths = Set([1, 2, 5, 12, 20, data.count / 4, data.count / 2, data.count * 3 / 4, data.count - 1])
        for length in lengths.sorted() where length < data.count {
            let cut = data.prefix(length)
            #expect(errorCode { _ = try JXLCoder().decode(cut, options: DecodeOptions()) } == .badImageData,
                    "decode of \(length) bytes of \(data.count)")
            // A header read finds a cut in the headers or in a container's boxes; a bare codestream cut inside
            // its last frame's pixels reads as the whole file would.
            let isContainer = data.starts(with: [0, 0, 0, 0x0C])
            do {
                let properties = try JXLCoder().properties(of: cut)
                #expect(!isContainer, "properties of \(length) bytes of \(data.count)")
                #expect(properties == (try JXLCoder().properties(of: data)))
            } catch let error as ImageError {
                #expect(error.code == .badImageData)
            }
        }
    }

    @Test(arguments: JXLFixtures.all)
    func corruptCopiesThrowTypedErrors(name: String) throws {
        let data = try JXLFixtures.data(name)
        var generator = SplitMix(seed: UInt64(name.utf8.count))
        for _ in 0..<40 {
            var copy = [UInt8](data)
            for _ in 0..<3 {
                copy[Int(generator.next() % UInt64(copy.count))] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            // A flipped bit may still leave a decodable image (or one declaring a size over the limits).
            for code in [errorCode { _ = try JXLCoder().decode(Data(copy), options: DecodeOptions()) },
                         errorCode { _ = try JXLCoder().properties(of: Data(copy)) }] {
                #expect(code == nil || code == .badImageData || code == .imageTooLarge)
            }
        }
    }

    @Test func otherFormatsAreNotDecoded() {
        #expect(!JXLCoder().canDecode(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(errorCode { _ = try JXLCoder().decode(Data("not an image".utf8), options: DecodeOptions()) } == .badImageData)
    }
}
