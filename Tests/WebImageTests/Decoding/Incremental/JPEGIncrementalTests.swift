import Foundation
import Testing
@testable import WebImage

/// JPEG fed piece by piece: baseline rows, progressive scans, the final image equal to a one-shot decode.
@Suite struct JPEGIncrementalTests {
    private func reference(_ name: String, width: Int = 128, height: Int = 96) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, rgba: Array(Fixtures.data("incremental/\(name).djpeg.rgba")))
    }

    @Test(arguments: ["baseline", "baseline_restart"], IncrementalFeeding.chunkSizes)
    func baselineRowsArriveTopToBottomAndTheFinalEqualsDjpeg(_ name: String, chunkSize: Int) throws {
        let data = try Fixtures.data("incremental/\(name).jpg")
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        let expected = try reference("baseline")
        #expect(run.final.pixels.bytes == expected.bytes)
        #expect(run.final.flags == [])
        #expect(run.final.format == .jpeg)
        var previousRows = 0
        for partial in run.partials {
            #expect(partial.image.flags.contains(.incremental))
            #expect(partial.image.flags.contains(.hasAlpha), "missing rows are transparent")
            #expect(partial.image.size == PixelSize(width: 128, height: 96))
            let rows = try #require(IncrementalFeeding.completedRows(of: partial.image.pixels, final: expected),
                                    "\(name) at \(partial.received) bytes is not final rows over transparent ones")
            #expect(rows > previousRows)
            previousRows = rows
        }
        if chunkSize <= 509 { #expect(run.partials.count >= 3, "a \(data.count)-byte file in \(chunkSize)-byte chunks") }
    }

    @Test(arguments: IncrementalFeeding.chunkSizes)
    func progressiveScansSharpenAndTheFinalEqualsDjpeg(chunkSize: Int) throws {
        let data = try Fixtures.data("incremental/progressive.jpg")
        let run = try IncrementalFeeding.feed(data, chunkSize: chunkSize)
        let expected = try reference("progressive")
        #expect(run.final.pixels.bytes == expected.bytes)
        #expect(!run.final.flags.contains(.incremental))
        var previous = 0.0
        for (index, partial) in run.partials.enumerated() {
            #expect(partial.image.flags == [.incremental], "a scan covers every row: opaque")
            #expect(partial.image.size == PixelSize(width: 128, height: 96))
            let psnr = PixelComparison.psnr(partial.image.pixels.bytes, expected.bytes)
            #expect(psnr > previous, "scan at \(partial.received) bytes: \(psnr) dB after \(previous) dB")
            #expect(psnr < .infinity, "partial image \(index) already equals the final one")
            previous = psnr
        }
        if chunkSize == 1 {
            // Ten scans: the DC scan, then AC bands and refinements. Each shows once complete, except the last:
            // libjpeg knows its last row is whole only when the end-of-image marker follows, and then the final
            // image is there.
            #expect(run.partials.count == 9, "partials at \(run.partials.map(\.received))")
            #expect(PixelComparison.psnr(run.partials[0].image.pixels.bytes, expected.bytes) > 15)
        }
        if chunkSize <= 100 { #expect(run.partials.count >= 3) }
    }

    @Test(arguments: [1, 100, Int.max])
    func grayscaleProgressiveEqualsDjpeg(chunkSize: Int) throws {
        let run = try IncrementalFeeding.feed(try Fixtures.data("incremental/progressive_gray.jpg"), chunkSize: chunkSize)
        #expect(run.final.pixels.bytes == (try reference("progressive_gray")).bytes)
        if chunkSize == 1 { #expect(run.partials.count == 5, "six scans, the last one shown as the final image") }
    }

    @Test(arguments: [1, 100, Int.max])
    func exifOrientationTurnsPartialAndFinalImages(chunkSize: Int) throws {
        let run = try IncrementalFeeding.feed(try Fixtures.data("incremental/progressive_exif6.jpg"), chunkSize: chunkSize)
        let expected = try reference("progressive").applying(.right)
        #expect(run.final.orientation == .right)
        #expect(run.final.pixels.bytes == expected.bytes)
        for partial in run.partials {
            #expect(partial.image.orientation == .right)
            #expect(partial.image.size == PixelSize(width: 96, height: 128))
        }
        let raw = try IncrementalFeeding.feed(try Fixtures.data("incremental/progressive_exif6.jpg"), chunkSize: chunkSize,
                                             options: DecodeOptions(applyOrientation: false))
        #expect(raw.final.orientation == .right)
        #expect(raw.final.pixels.bytes == (try reference("progressive")).bytes)
    }

    @Test(arguments: [1, 100, Int.max])
    func thumbnailsDecodeAtTheCodersDCTScale(chunkSize: Int) throws {
        // 128×96 into a 50×50 box is 50×38: 1/2 scale (64×48) is the smallest covering it, then an area resize.
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50))
        let run = try IncrementalFeeding.feed(try Fixtures.data("incremental/progressive.jpg"), chunkSize: chunkSize,
                                             options: options)
        let half = try reference("progressive.half", width: 64, height: 48)
        let expected = try options.finish(half, sourceSize: PixelSize(width: 128, height: 96), orientation: .up)
        #expect(run.final.size == PixelSize(width: 50, height: 38))
        #expect(run.final.flags == .thumbnail)
        #expect(run.final.pixels.bytes == expected.pixels.bytes)
        for partial in run.partials {
            #expect(partial.image.flags == [.incremental, .thumbnail])
            #expect(partial.image.size == PixelSize(width: 50, height: 38))
        }
    }

    @Test(arguments: ["baseline", "baseline_restart", "progressive", "progressive_gray", "progressive_exif6"])
    func finalEqualsTurboJPEGAtEveryScale(_ name: String) throws {
        let data = try Fixtures.data("incremental/\(name).jpg")
        for eighths in [8, 5, 4, 3, 2, 1] {
            let expected = try IncrementalFeeding.turboJPEG(data, eighths: eighths)
            let box = PixelSize(width: expected.width, height: expected.height)
            let options = DecodeOptions(thumbnailPixelSize: box, applyOrientation: false)
            let run = try IncrementalFeeding.feed(data, chunkSize: 333, options: options)
            #expect(run.final.pixels.bytes == expected.bytes, "\(name) at \(eighths)/8")
        }
    }

    @Test(.enabled(if: IncrementalFeeding.jpegCoderAvailable),
          arguments: ["baseline", "baseline_restart", "progressive", "progressive_gray", "progressive_exif6", "cmyk"])
    func finalEqualsTheJPEGCodersOneShotDecode(_ name: String) throws {
        let data = try Fixtures.data("incremental/\(name).jpg")
        for options in [DecodeOptions(), DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)),
                        DecodeOptions(scaleDownLimitBytes: 4000)] {
            let oneShot = try ImageCoders.shared.decode(data, options: options)
            let run = try IncrementalFeeding.feed(data, chunkSize: 200, options: options)
            #expect(run.final.pixels.bytes == oneShot.pixels.bytes, "\(name) with \(options)")
            #expect(run.final.flags == oneShot.flags)
            #expect(run.final.orientation == oneShot.orientation)
        }
    }

    @Test func cmykIsDecodedWholeByTheCoders() throws {
        let data = try Fixtures.data("incremental/cmyk.jpg")
        let decoder = IncrementalDecoder()
        for start in stride(from: 0, to: data.count, by: 100) {
            try decoder.append(data[start..<min(start + 100, data.count)])
            #expect(decoder.currentImage() == nil)
        }
        let oneShot = Result { try ImageCoders.shared.decode(data) }
        let incremental = Result { try decoder.finish() }
        switch (oneShot, incremental) {
        case let (.success(expected), .success(image)):
            #expect(image.pixels.bytes == expected.pixels.bytes)
        case let (.failure(expected), .failure(error)):
            #expect((error as? ImageError)?.code == (expected as? ImageError)?.code)
        default:
            Issue.record("the one-shot decode and the incremental one disagree: \(oneShot) vs \(incremental)")
        }
    }

    @Test(arguments: ["baseline", "progressive", "progressive_gray"])
    func everyTruncationIsBadImageData(_ name: String) throws {
        let data = try Fixtures.data("incremental/\(name).jpg")
        for cut in Fixtures.truncations(of: data) {
            #expect(IncrementalFeeding.errorCode(decoding: cut) == .badImageData, "\(name) cut to \(cut.count) bytes")
        }
    }

    @Test(arguments: ["baseline", "progressive"])
    func scanDataCutShortByAnEndMarkerIsBadImageData(_ name: String) throws {
        var data = try Fixtures.data("incremental/\(name).jpg")
        data = data.prefix(data.count * 2 / 3) + Data([0xFF, 0xD9])
        #expect(IncrementalFeeding.errorCode(decoding: data) == .badImageData)
    }

    @Test func garbageAfterTheSignatureIsBadImageData() {
        var data = Data([0xFF, 0xD8, 0xFF])
        data.append(Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        #expect(IncrementalFeeding.errorCode(decoding: data) == .badImageData)
    }

    @Test func headerOverThePixelLimitFailsBeforeThePixelsArrive() throws {
        let data = try Fixtures.data("incremental/progressive.jpg")
        let decoder = IncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 128 * 96 - 1)))
        // The header (tables, SOF, the first SOS) is in the first 700 bytes; the scans follow.
        let code = IncrementalFeeding.errorCode { try decoder.append(data.prefix(700)) }
        #expect(code == .imageTooLarge)
        #expect(IncrementalFeeding.errorCode { try decoder.append(data.dropFirst(700)) } == .imageTooLarge)
        #expect(IncrementalFeeding.errorCode { _ = try decoder.finish() } == .imageTooLarge)
        let exact = IncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 128 * 96)))
        try exact.append(data)
        #expect(try exact.finish().size == PixelSize(width: 128, height: 96))
    }

    @Test func hugeDeclaredFrameIsRefusedFromTheHeader() throws {
        // The baseline file with its SOF patched to 60 000 × 60 000 (3.6 gigapixels).
        var data = try Fixtures.data("incremental/baseline.jpg")
        let sof = try #require(data.indices.dropLast().first { data[$0] == 0xFF && data[$0 + 1] == 0xC0 })
        data.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])
        let decoder = IncrementalDecoder()
        #expect(IncrementalFeeding.errorCode { try decoder.append(data) } == .imageTooLarge)
    }
}
