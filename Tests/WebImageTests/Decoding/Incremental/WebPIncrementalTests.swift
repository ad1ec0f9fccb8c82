import Foundation
import Testing
@testable import WebImage

/// WebP fed piece by piece through libwebp's incremental decoder.
@Suite struct WebPIncrementalTests {
    static let stills = ["webp/lossy.webp", "webp/lossless.webp", "webp/lossy_alpha.webp", "webp/exif6.webp",
                         "incremental/photo_lossy.webp", "incremental/photo_lossless.webp"]

    @Test(arguments: stills, [1, 13, 100, 4096, Int.max])
    func finalEqualsTheWebPCodersDecode(_ path: String, chunkSize: Int) throws {
        let data = try Fixtures.data(path)
        let oneShot = try WebPCoder().decode(data, options: DecodeOptions())
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        #expect(run.final.pixels.bytes == oneShot.pixels.bytes)
        #expect(run.final.flags == oneShot.flags)
        #expect(run.final.orientation == oneShot.orientation)
        #expect(run.final.format == .webp)
        for partial in run.partials {
            #expect(partial.image.flags.contains(.incremental))
            if oneShot.hasAlpha { #expect(partial.image.hasAlpha) }
            // WebP's EXIF chunk follows the pixels: partial images are the stored ones.
            #expect(partial.image.orientation == .up)
        }
    }

    @Test(arguments: ["photo_lossy", "photo_lossless"], [1, 100, 509])
    func rowsArriveTopToBottom(_ name: String, chunkSize: Int) throws {
        let data = try Fixtures.data("incremental/\(name).webp")
        let reference = name == "photo_lossy" ? "photo_lossy.dwebp.rgba" : "photo_rgba.source.rgba"
        let expected = try PixelBuffer(width: 128, height: 96, rgba: Array(Fixtures.data("incremental/\(reference)")))
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        #expect(run.final.pixels.bytes == expected.bytes)
        var previousRows = 0
        for partial in run.partials {
            let rows = try #require(IncrementalFeeding.completedRows(of: partial.image.pixels, final: expected),
                                    "\(name) at \(partial.received) bytes")
            #expect(rows > previousRows)
            previousRows = rows
        }
        #expect(run.partials.count >= 2, "\(data.count) bytes in \(chunkSize)-byte chunks")
    }

    @Test(arguments: [1, 100, Int.max])
    func thumbnailsUseLibwebpsScalerLikeTheCoder(chunkSize: Int) throws {
        let data = try Fixtures.data("incremental/photo_lossy.webp")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50))
        let oneShot = try WebPCoder().decode(data, options: options)
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize, options: options)
        #expect(run.final.size == PixelSize(width: 50, height: 38))
        #expect(run.final.pixels.bytes == oneShot.pixels.bytes)
        #expect(run.final.flags == oneShot.flags)
        for partial in run.partials { #expect(partial.image.size == oneShot.size) }
    }

    @Test func exifWithAThumbnailAndAnimationsAreDecodedWhole() throws {
        let cases: [(String, DecodeOptions)] = [
            ("webp/exif6.webp", DecodeOptions(thumbnailPixelSize: PixelSize(width: 1, height: 2))),
            ("webp/animated.webp", DecodeOptions()),
            ("webp/animated.webp", DecodeOptions(firstFrameOnly: true)),
        ]
        for (path, options) in cases {
            let data = try Fixtures.data(path)
            let oneShot = try WebPCoder().decode(data, options: options)
            let decoder = IncrementalDecoder(options: options)
            for byte in data.indices {
                try decoder.append(data[byte...byte])
                #expect(decoder.currentImage() == nil)
            }
            let image = try decoder.finish()
            #expect(image.frames.map(\.pixels.bytes) == oneShot.frames.map(\.pixels.bytes), "\(path)")
            #expect(image.frames.map(\.duration) == oneShot.frames.map(\.duration))
            #expect(image.orientation == oneShot.orientation)
        }
    }

    @Test(arguments: stills)
    func everyTruncationIsBadImageData(_ path: String) throws {
        let data = try Fixtures.data(path)
        for cut in Fixtures.truncations(of: data) {
            #expect(IncrementalFeeding.errorCode(decoding: cut) == .badImageData, "\(path) cut to \(cut.count) bytes")
        }
    }

    @Test func corruptBitstreamIsBadImageData() throws {
        var data = try Fixtures.data("incremental/photo_lossless.webp")
        data.replaceSubrange(40..<data.count - 8, with: Data(repeating: 0xA5, count: data.count - 48))
        #expect(IncrementalFeeding.errorCode(decoding: data) == .badImageData)
    }

    @Test func limitsAreCheckedFromTheHeader() throws {
        #expect(IncrementalFeeding.errorCode(decoding: try Fixtures.data("webp/bomb_16384x16384.webp")) == .imageTooLarge)
        let data = try Fixtures.data("incremental/photo_lossy.webp")
        let decoder = IncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 128 * 96 - 1)))
        #expect(IncrementalFeeding.errorCode { try decoder.append(data.prefix(64)) } == .imageTooLarge)
    }
}
