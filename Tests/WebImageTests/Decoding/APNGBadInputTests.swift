import Foundation
import Testing
@testable import WebImage

/// Damaged APNG files: each is refused with ``ImageError/Code/badImageData`` (never a shorter animation), and
/// no damage crashes the decoder.
@Suite struct APNGBadInputTests {
    static let damaged = [
        "bad-sequence", "bad-crc-fdat", "truncated", "frame-count-short", "fctl-outside", "default-fctl-offset",
        "bad-dispose-op", "corrupt-frame-data",
    ]

    static let decodable = [
        "default-is-first-frame", "default-hidden", "dispose-none", "dispose-background", "dispose-previous",
        "dispose-previous-twice", "dispose-previous-first", "blend-source", "blend-over", "blend-over-offsets",
        "palette-trns", "gray-colour-key", "rgb16-interlaced", "delays", "split-chunks", "exif6", "single-frame",
        "pillow",
    ]

    @Test(arguments: damaged)
    func damagedFileIsBadImageData(_ name: String) {
        #expect(APNGTesting.code { try APNGTesting.decode(name) } == .badImageData)
        #expect(APNGTesting.code { try ImageCoders.shared.decode(Fixtures.data("apng/\(name).png")) } == .badImageData)
    }

    /// Damage to the chunk layout is found even when only the first frame is wanted: the whole layout is read
    /// and checked before any pixel.
    @Test(arguments: damaged.filter { $0 != "corrupt-frame-data" && $0 != "bad-crc-fdat" })
    func damagedLayoutIsFoundEvenWhenOnlyTheFirstFrameIsWanted(_ name: String) {
        let options = DecodeOptions(firstFrameOnly: true)
        #expect(APNGTesting.code { try APNGTesting.decode(name, options: options) } == .badImageData)
    }

    /// The data of frames that are not decoded is neither inflated nor checksummed: damage there (a corrupt zlib
    /// stream, a wrong fdAT CRC in frame 1) does not spoil a first-frame-only decode.
    @Test(arguments: ["corrupt-frame-data", "bad-crc-fdat"])
    func damagedLaterFrameDataDoesNotSpoilTheFirstFrameAlone(_ name: String) throws {
        let image = try APNGTesting.decode(name, options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(GIFTesting.mismatch(image.pixels) { _, _ in APNGColors.red } == nil)
    }

    @Test(arguments: decodable)
    func everyTruncationIsBadImageData(_ name: String) throws {
        let data = try Fixtures.data("apng/\(name).png")
        for cut in Fixtures.truncations(of: data) {
            let code = APNGTesting.code { try PNGCoder().decode(cut, options: DecodeOptions()) }
            #expect(code == .badImageData, "\(name) cut to \(cut.count) of \(data.count) bytes")
        }
    }

    @Test func cutBetweenFramesIsNotAShorterAnimation() throws {
        // `truncated` ends right after frame 1's data, before frame 2's fcTL: two whole frames, no IEND.
        let data = try Fixtures.data("apng/truncated.png")
        #expect(APNGTesting.code { try PNGCoder().decode(data, options: DecodeOptions()) } == .badImageData)
    }

    /// Every byte of every chunk's data set to 0, 0xFF and flipped, with the CRC made right again so the
    /// parser, not the checksum, meets the damage. Each decode must return an image or throw an ImageError.
    @Test(arguments: ["dispose-previous", "palette-trns", "default-hidden"])
    func damagedChunkDataNeverCrashes(_ name: String) throws {
        let original = Array(try Fixtures.data("apng/\(name).png"))
        var offset = 8
        var decodes = 0
        while offset + 12 <= original.count {
            let length = Int(original[offset]) << 24 | Int(original[offset + 1]) << 16
                | Int(original[offset + 2]) << 8 | Int(original[offset + 3])
            for index in (offset + 8)..<(offset + 8 + length) {
                for value in [UInt8(0), 0xFF, original[index] ^ 0x80] where value != original[index] {
                    var bytes = original
                    bytes[index] = value
                    let crc = bytes.withUnsafeBytes {
                        CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(offset + 8 + length)]))
                    }
                    for shift in 0..<4 {
                        bytes[offset + 8 + length + shift] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(shift)))
                    }
                    do {
                        let image = try PNGCoder().decode(Data(bytes), options: DecodeOptions())
                        #expect(!image.frames.isEmpty)
                    } catch {
                        #expect(error is ImageError, "byte \(index) = \(value): \(error)")
                    }
                    decodes += 1
                }
            }
            offset += length + 12
        }
        #expect(decodes > 300)
    }
}
