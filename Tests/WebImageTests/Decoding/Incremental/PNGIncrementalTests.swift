import Foundation
import Testing
@testable import WebImage

/// PNG fed piece by piece through libpng's progressive reader: rows, Adam7 passes, the PNG coder's exact pixels.
@Suite struct PNGIncrementalTests {
    /// Every decodable PNG fixture: each colour type and bit depth, tRNS, Adam7, APNG, eXIf.
    static let coderFixtures = PNGBadInputTests.decodable.map { "png/\($0).png" }
        + ["incremental/photo_rgba.png", "incremental/photo_rgba_interlaced.png"]

    @Test(arguments: coderFixtures, [1, 13, 100, Int.max])
    func finalEqualsThePNGCodersDecode(_ path: String, chunkSize: Int) throws {
        let data = try Fixtures.data(path)
        let oneShot = try PNGCoder().decode(data, options: DecodeOptions())
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        #expect(run.final.pixels.bytes == oneShot.pixels.bytes)
        #expect(run.final.flags == oneShot.flags)
        #expect(run.final.orientation == oneShot.orientation)
        #expect(run.final.format == .png)
        for partial in run.partials {
            #expect(partial.image.flags.contains(.incremental))
            #expect(partial.image.size == oneShot.size)
        }
    }

    @Test(arguments: [1, 7, 100, 509, 4096])
    func sequentialRowsArriveTopToBottom(chunkSize: Int) throws {
        let data = try Fixtures.data("incremental/photo_rgba.png")
        let expected = try PixelBuffer(width: 128, height: 96, rgba: Array(Fixtures.data("incremental/photo_rgba.source.rgba")))
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        #expect(run.final.pixels.bytes == expected.bytes)
        var previousRows = 0
        for partial in run.partials {
            #expect(partial.image.flags == [.incremental, .hasAlpha])
            let rows = try #require(IncrementalFeeding.completedRows(of: partial.image.pixels, final: expected))
            #expect(rows > previousRows)
            previousRows = rows
        }
        #expect(run.partials.count >= min(10, data.count / chunkSize / 2))
    }

    @Test(arguments: [1, 100, 509, 4096])
    func interlacedPassesCoverTheImageAndSharpen(chunkSize: Int) throws {
        let data = try Fixtures.data("incremental/photo_rgba_interlaced.png")
        let expected = Array(try Fixtures.data("incremental/photo_rgba.source.rgba"))
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        #expect(run.final.pixels.bytes == expected)
        var previous = 0.0
        var sawWholeCoarseImage = false
        for partial in run.partials {
            #expect(partial.image.size == PixelSize(width: 128, height: 96))
            let psnr = PixelComparison.psnr(partial.image.pixels.bytes, expected, channels: [0, 1, 2, 3])
            #expect(psnr >= previous, "at \(partial.received) bytes: \(psnr) dB after \(previous) dB")
            previous = psnr
            // After the first pass every row holds pixels (the first pass's 8×8 blocks): none is transparent black.
            let rows = IncrementalFeeding.rows(partial.image.pixels)
            if rows.allSatisfy({ !$0.allSatisfy { $0 == 0 } }) { sawWholeCoarseImage = true }
        }
        #expect(sawWholeCoarseImage, "no partial image showed the whole picture before its last pass")
        #expect(previous > 20)
    }

    @Test(arguments: coderFixtures)
    func everyTruncationIsBadImageData(_ path: String) throws {
        let data = try Fixtures.data(path)
        for cut in Fixtures.truncations(of: data) {
            #expect(IncrementalFeeding.errorCode(decoding: cut) == .badImageData, "\(path) cut to \(cut.count) bytes")
        }
    }

    @Test func corruptStreamsAreBadImageData() throws {
        #expect(IncrementalFeeding.errorCode(decoding: try Fixtures.data("png/corrupt_zlib.png")) == .badImageData)
        var data = try Fixtures.data("incremental/photo_rgba.png")
        data.replaceSubrange(data.count / 2..<data.count, with: Data(count: data.count - data.count / 2))
        #expect(IncrementalFeeding.errorCode(decoding: data) == .badImageData)
        var signatureThenGarbage = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        signatureThenGarbage.append(Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        #expect(IncrementalFeeding.errorCode(decoding: signatureThenGarbage) == .badImageData)
    }

    @Test func trailingBytesAfterTheEndAreIgnored() throws {
        var data = try Fixtures.data("png/rgb8.png")
        data.append(Data(count: 4096))
        let run = try IncrementalFeeding.feed(data, chunkSize: 100)
        #expect(run.final.pixels.bytes == Array(try Fixtures.data("png/rgb8.rgba")))
    }

    @Test func limitsAreCheckedFromTheHeader() throws {
        #expect(IncrementalFeeding.errorCode(decoding: try Fixtures.data("png/bomb_100000x100000.png")) == .imageTooLarge)
        let data = try Fixtures.data("png/bands64x32.png")
        let tight = DecodeOptions(limits: DecodeLimits(maxPixels: 2047))
        #expect(IncrementalFeeding.errorCode(decoding: data, options: tight) == .imageTooLarge)
        let exact = DecodeOptions(limits: DecodeLimits(maxPixels: 2048))
        #expect(IncrementalFeeding.errorCode(decoding: data, options: exact) == nil)
        // The header alone (signature + IHDR + the next chunk's start) is enough to refuse the large one.
        let big = try Fixtures.data("incremental/photo_rgba.png")
        let decoder = IncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 1000)))
        var code: ImageError.Code?
        for end in stride(from: 16, to: 200, by: 16) where code == nil {
            code = IncrementalFeeding.errorCode { try decoder.append(big[end - 16..<end]) }
        }
        #expect(code == .imageTooLarge)
    }

    @Test func compressedTextIsSkippedUnread() throws {
        // A 40 KB zTXt chunk inflating to 40 MB: the PNG coder refuses it (imageTooLarge); here it is skipped.
        let data = try Fixtures.data("png/bomb_ztxt40mb.png")
        let image = try IncrementalFeeding.feed(data, chunkSize: 4096).final
        #expect(image.size.area > 0)
        #expect(!image.flags.contains(.incremental))
    }

    @Test func thumbnailsGoThroughTheSameLastStepAsTheCoder() throws {
        let data = try Fixtures.data("incremental/photo_rgba_interlaced.png")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40))
        let oneShot = try PNGCoder().decode(data, options: options)
        let run = try IncrementalFeeding.feed(data, chunkSize: 500, options: options)
        #expect(run.final.pixels.bytes == oneShot.pixels.bytes)
        #expect(run.final.flags == oneShot.flags)
        for partial in run.partials {
            #expect(partial.image.size == oneShot.size)
            #expect(partial.image.flags.isSuperset(of: [.incremental, .thumbnail, .hasAlpha]))
        }
    }

    @Test(arguments: ["png/apng.png", "apng/default-hidden.png", "apng/dispose-previous.png"], [1, 100, Int.max])
    func animatedPNGIsDecodedWholeWithEveryFrame(_ path: String, chunkSize: Int) throws {
        let data = try Fixtures.data(path)
        let oneShot = try PNGCoder().decode(data, options: DecodeOptions())
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        #expect(run.partials.isEmpty, "libpng would show the default image, which may not be in the animation")
        #expect(run.final.frames.count == oneShot.frames.count)
        #expect(run.final.frames.map(\.pixels.bytes) == oneShot.frames.map(\.pixels.bytes))
        #expect(run.final.frames.map(\.duration) == oneShot.frames.map(\.duration))
    }
}
