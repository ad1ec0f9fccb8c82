import Foundation
import Testing
@testable import WebImage

/// Hostile and broken WebP input: each gets its typed error, never a crash or a large allocation.
@Suite struct WebPBadInputTests {
    static let decodable = ["lossy", "lossless", "lossy_alpha", "exif6", "animated", "animated_1x1"]

    private func decode(_ data: Data, _ options: DecodeOptions = DecodeOptions()) -> ImageError.Code? {
        do {
            _ = try WebPCoder().decode(data, options: options)
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func emptyDataIsBadImageData() {
        #expect(decode(Data()) == .badImageData)
    }

    @Test func garbageIsBadImageData() {
        #expect(decode(Data("not a picture at all, just text".utf8)) == .badImageData)
        var header = Data("RIFF".utf8) + Data([200, 0, 0, 0]) + Data("WEBPVP8 ".utf8)
        header.append(Data((0..<200).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 7) }))
        #expect(decode(header) == .badImageData)
    }

    @Test(arguments: decodable)
    func everyTruncationIsBadImageData(_ name: String) throws {
        let data = try Fixtures.data("webp/\(name).webp")
        #expect(decode(data) == nil, "the whole file decodes")
        for cut in Fixtures.truncations(of: data) {
            #expect(decode(cut) == .badImageData, "\(name) cut to \(cut.count) of \(data.count) bytes")
        }
    }

    @Test func zeroPaddingAfterTheFileIsIgnored() throws {
        var data = try Fixtures.data("webp/lossless.webp")
        data.append(Data(count: 1000))
        #expect(decode(data) == nil)
    }

    @Test func zerosInPlaceOfTheLosslessBitstreamAreBadImageData() throws {
        // (A lossy VP8 bitstream has no checksum: zeros there decode to a valid, meaningless picture.)
        var data = try Fixtures.data("webp/lossless.webp")
        data.replaceSubrange(data.startIndex + 30..<data.endIndex, with: Data(count: data.count - 30))
        #expect(decode(data) == .badImageData)
    }

    @Test func pixelBombIsRefusedFromTheHeader() throws {
        // A lossless header declaring 16384 x 16384 (268 MP) over a few bytes of bitstream.
        #expect(decode(try Fixtures.data("webp/bomb_16384x16384.webp")) == .imageTooLarge)
        let small = DecodeOptions(limits: DecodeLimits(maxPixels: 32 * 32 - 1))
        #expect(decode(try Fixtures.data("webp/lossless.webp"), small) == .imageTooLarge)
    }

    @Test func corruptFrameInTheMiddleStopsTheDecode() throws {
        // Overwrite the bitstream of the second frame (the second ANMF chunk's VP8L payload) with 0xFF.
        var bytes = [UInt8](try Fixtures.data("webp/animated.webp"))
        let anmf = Array("ANMF".utf8)
        let starts = (12..<bytes.count - 4).filter { Array(bytes[$0..<$0 + 4]) == anmf }
        try #require(starts.count == 3)
        // ANMF header 8 + frame fields 16, then the VP8L chunk header 8 and its 5-byte bitstream header.
        let payload = starts[1] + 8 + 16 + 8 + 5
        for index in payload..<starts[2] - 2 { bytes[index] = 0xFF }
        #expect(decode(Data(bytes)) == .badImageData)
        // The first frame alone still decodes.
        #expect(decode(Data(bytes), DecodeOptions(firstFrameOnly: true)) == nil)
    }
}
