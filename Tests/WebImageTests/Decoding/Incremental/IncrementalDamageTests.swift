import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// Damaged files fed in random pieces: the decoder never crashes, always ends with an image or an
/// ``ImageError``, and agrees with the one-shot coders on which.
@Suite struct IncrementalDamageTests {
    /// Every run damages the same bytes.
    typealias Generator = SplitMix

    /// `data` with a few bytes past the signature replaced by random ones.
    static func damaged(_ data: Data, using generator: inout Generator) -> Data {
        var copy = data
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let index = copy.startIndex + Int.random(in: 12..<copy.count, using: &generator)
            copy[index] = UInt8.random(in: 0...255, using: &generator)
        }
        return copy
    }

    /// Feeds `data` in random pieces, asking for a partial image after each; the final image or the error.
    static func feedInRandomPieces(_ data: Data, using generator: inout Generator) -> Result<Image, ImageError> {
        let decoder = IncrementalDecoder(partialImagePolicy: .everyChange)
        var start = data.startIndex
        do {
            while start < data.endIndex {
                let end = min(data.endIndex, start + Int.random(in: 1...700, using: &generator))
                try decoder.append(data[start..<end])
                if let partial = decoder.currentImage() { #expect(partial.size.area > 0) }
                start = end
            }
            return .success(try decoder.finish())
        } catch let error as ImageError {
            return .failure(error)
        } catch {
            Issue.record("an error that is not an ImageError: \(error)")
            return .failure(ImageError(.badImageData, "\(error)"))
        }
    }

    @Test(arguments: ["incremental/photo_rgba.png", "incremental/photo_rgba_interlaced.png", "png/interlaced_rgb16.png",
                      "png/palette8_trns.png", "incremental/photo_lossy.webp", "incremental/photo_lossless.webp",
                      "gif/anim-magick.gif", "gif/dispose-previous.gif", "gif/interlaced.gif"])
    func damageGivesTheOneShotCodersAnswer(_ path: String) throws {
        let original = try Fixtures.data(path)
        var generator = Generator(seed: UInt64(truncatingIfNeeded: path.utf8.count &* 7919))
        for round in 0..<80 {
            let data = Self.damaged(original, using: &generator)
            let oneShot = Result { try ImageCoders.shared.decode(data) }
            switch (oneShot, Self.feedInRandomPieces(data, using: &generator)) {
            case let (.success(expected), .success(image)):
                #expect(image.frames.map(\.pixels.bytes) == expected.frames.map(\.pixels.bytes), "round \(round)")
            case let (.failure(expected), .failure(error)):
                // Known differences in which error a damaged header gets: libpng checks a chunk's CRC before
                // libspng would check the size it declares, and refuses an ancillary chunk declaring more than the
                // chunk limit when its header arrives, before the data could show that the file is cut.
                let knownDifference = error.message.contains("CRC error")
                    || error.message.contains("chunk data is too large")
                #expect(error.code == (expected as? ImageError)?.code || knownDifference,
                        "round \(round): \(error) vs \(expected)")
            case let (.success, .failure(error)) where error.message.contains("invalid chunk type"):
                // Known difference: libpng refuses a chunk name that is not four letters; libspng skips such an
                // ancillary chunk (its CRC no longer matches) and decodes the rest.
                break
            case let (expected, incremental):
                Issue.record("round \(round) of \(path): one-shot \(expected), incremental \(incremental)")
            }
        }
    }

    @Test(arguments: ["incremental/baseline.jpg", "incremental/baseline_restart.jpg", "incremental/progressive.jpg",
                      "incremental/progressive_gray.jpg"])
    func damagedJPEGEndsInAnImageOrATypedError(_ path: String) throws {
        let original = try Fixtures.data(path)
        var generator = Generator(seed: UInt64(truncatingIfNeeded: path.utf8.count &* 104_729))
        var failures = 0
        for round in 0..<80 {
            let data = Self.damaged(original, using: &generator)
            let incremental = Self.feedInRandomPieces(data, using: &generator)
            switch incremental {
            case .success(let image): #expect(image.size.area > 0 && !image.flags.contains(.incremental))
            case .failure(let error):
                failures += 1
                #expect(error.code == .badImageData || error.code == .imageTooLarge || error.code == .unsupportedFormat)
            }
            guard IncrementalFeeding.jpegCoderAvailable else { continue }
            // With the JPEG coder present: the same pixels when it decodes, a failure when it refuses, except for
            // sampling factors only TurboJPEG refuses (libjpeg decodes any). Which error two failures get may
            // differ: the coder reads every marker before libjpeg starts.
            switch (Result { try ImageCoders.shared.decode(data) }, incremental) {
            case let (.success(expected), .success(image)):
                #expect(image.pixels.bytes == expected.pixels.bytes, "round \(round)")
            case (.failure, .failure): break
            case let (.failure(expected), .success) where "\(expected)".contains("subsampling"): break
            case let (expected, incremental):
                Issue.record("round \(round) of \(path): one-shot \(expected), incremental \(incremental)")
            }
        }
        // Most damage is caught (a broken Huffman code, a bad marker); some only changes pixels (JPEG has no checksum).
        #expect(failures > 0)
    }
}
