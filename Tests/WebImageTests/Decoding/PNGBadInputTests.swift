import Foundation
import Testing
@testable import WebImage

/// Hostile and broken PNG input: each gets its typed error, never a crash or a large allocation.
@Suite struct PNGBadInputTests {
    static let decodable = [
        "gray1", "gray2", "gray4", "gray8", "gray16", "gray_alpha8", "gray_alpha16", "rgb8", "rgb16", "rgba8",
        "rgba16", "gray8_trns", "rgb8_trns", "palette4", "palette8_trns", "interlaced_rgba8", "interlaced_rgb16",
        "interlaced_gray1", "apng", "exif6", "bands64x32",
    ]

    private func code(of body: () throws -> Image) -> ImageError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            return nil
        }
    }

    private func decode(_ data: Data, _ options: DecodeOptions = DecodeOptions()) -> ImageError.Code? {
        code { try PNGCoder().decode(data, options: options) }
    }

    @Test func emptyDataIsBadImageData() {
        #expect(decode(Data()) == .badImageData)
        #expect(code { try ImageCoders.shared.decode(Data()) } == .badImageData)
    }

    @Test func garbageIsBadImageData() {
        #expect(decode(Data("this is a text file, not a picture".utf8)) == .badImageData)
        var signatureThenGarbage = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        signatureThenGarbage.append(Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        #expect(decode(signatureThenGarbage) == .badImageData)
    }

    @Test(arguments: decodable)
    func everyTruncationIsBadImageData(_ name: String) throws {
        let data = try Fixtures.data("png/\(name).png")
        for cut in Fixtures.truncations(of: data) {
            #expect(decode(cut) == .badImageData, "\(name) cut to \(cut.count) of \(data.count) bytes")
        }
    }

    @Test func zeroPaddingAfterTheEndIsIgnored() throws {
        var data = try Fixtures.data("png/rgb8.png")
        data.append(Data(count: 4096))
        let image = try PNGCoder().decode(data, options: DecodeOptions())
        #expect(image.pixels.bytes == Array(try Fixtures.data("png/rgb8.rgba")))
    }

    @Test func zerosInPlaceOfTheSecondHalfAreBadImageData() throws {
        var data = try Fixtures.data("png/rgb8.png")
        data.replaceSubrange(data.count / 2..<data.count, with: Data(count: data.count - data.count / 2))
        #expect(decode(data) == .badImageData)
    }

    @Test func hugeHeaderIsRefusedBeforeAllocating() throws {
        #expect(decode(try Fixtures.data("png/bomb_100000x100000.png")) == .imageTooLarge)
    }

    @Test func configuredPixelLimitIsHonoured() throws {
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 2047))
        #expect(decode(try Fixtures.data("png/bands64x32.png"), options) == .imageTooLarge)
        let exact = DecodeOptions(limits: DecodeLimits(maxPixels: 2048))
        #expect(decode(try Fixtures.data("png/bands64x32.png"), exact) == nil)
    }

    @Test func inflatingMetadataBombIsNeverInflated() throws {
        // A 40 KB zTXt chunk that inflates to 40 MB. An 8-bit RGB file is read by PNGRowReader, which skips
        // text chunks unread; libspng (the other kinds) refuses it as over its chunk limit.
        let data = try Fixtures.data("png/bomb_ztxt40mb.png")
        #expect(data.withUnsafeBytes { PNGRowReader($0) } != nil)
        #expect(decode(data) == nil)
    }

    @Test func corruptZlibStreamIsBadImageData() throws {
        #expect(decode(try Fixtures.data("png/corrupt_zlib.png")) == .badImageData)
    }

    @Test func checksumMismatchIsBadImageData() throws {
        var data = try Fixtures.data("png/rgb8.png")
        // Byte 33 + 8 is inside the first IDAT's compressed data (after signature, IHDR and the IDAT header).
        let index = data.startIndex + 33 + 8 + 2
        data[index] ^= 0x55
        #expect(decode(data) == .badImageData)
    }
}
