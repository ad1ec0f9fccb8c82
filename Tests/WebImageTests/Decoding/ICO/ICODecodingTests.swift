import Foundation
import Testing
@testable import WebImage

/// ICO and CUR files written by Pillow (PNG entries), ImageMagick (32-bit bitmap entries, a 256 PNG entry) and by
/// hand (1, 4, 8, 24 and 32-bit bitmap entries with AND masks, a directory that lies about sizes), compared with
/// Pillow's decode of the same entry or with hand-made pixels.
@Suite struct ICODecodingTests {
    /// Every icon fixture, the size a default decode picks, and whether it reports alpha.
    static let files: [(name: String, size: Int, hasAlpha: Bool)] = [
        ("pil-png.ico", 48, true), ("im-bmp.ico", 48, true), ("im-256.ico", 256, true), ("mixed.ico", 20, true),
        ("zero-alpha32.ico", 12, true), ("cursor.cur", 16, true),
    ]
    static let names = files.map(\.name)

    private func decode(_ name: String, box: Int? = nil) throws -> Image {
        let options = DecodeOptions(thumbnailPixelSize: box.map { PixelSize(width: $0, height: $0) })
        return try ICOCoder().decode(Fixtures.data("ico/\(name)"), options: options)
    }

    private func reference(_ name: String) throws -> [UInt8] {
        [UInt8](try Fixtures.data("ico/\(name).rgba"))
    }

    @Test(arguments: files.map { $0 })
    func defaultDecodeIsTheLargestEntry(_ file: (name: String, size: Int, hasAlpha: Bool)) throws {
        let data = try Fixtures.data("ico/\(file.name)")
        #expect(ImageFormat.detect(data) == .ico)
        let image = try ICOCoder().decode(data, options: DecodeOptions())
        #expect(image.size == PixelSize(width: file.size, height: file.size))
        #expect(image.format == .ico && image.frames.count == 1 && !image.flags.contains(.thumbnail))
        #expect(image.hasAlpha == file.hasAlpha)
        let properties = try ICOCoder().properties(of: data)
        #expect(properties == ImageProperties(of: image))
        #expect(properties.frameCount == 1)
    }

    @Test(arguments: [
        ("pil-png", 16), ("pil-png", 32), ("pil-png", 48), ("im-bmp", 16), ("im-bmp", 32), ("im-bmp", 48),
        ("im-256", 32), ("mixed", 8), ("mixed", 16), ("mixed", 20), ("zero-alpha32", 12),
    ])
    func eachEntryDecodesLikeTheReference(_ name: String, _ size: Int) throws {
        // Asking for exactly an entry's size picks that entry, undisturbed by the thumbnail step.
        let image = try decode("\(name).ico", box: size)
        #expect(image.size == PixelSize(width: size, height: size))
        #expect(!image.flags.contains(.thumbnail))
        let difference = PixelComparison.maxDifference(image.pixels.bytes, try reference("\(name)-\(size)x\(size)"))
        #expect(difference == 0, "\(name) at \(size): max difference \(difference)")
    }

    @Test func the256EntryIsAPNGWhoseDirectorySizeIsZero() throws {
        let data = try Fixtures.data("ico/im-256.ico")
        #expect(data[6] == 0 && data[7] == 0)
        let image = try ICOCoder().decode(data, options: DecodeOptions())
        let expected = try PNGCoder().decode(Fixtures.data("ico/im-256-256x256.png"), options: DecodeOptions())
        #expect(image.pixels.bytes == expected.pixels.bytes)
    }

    @Test func entryChoiceFollowsTheThumbnailSize() throws {
        // mixed.ico: 8x8 1-bit, 16x16 4-bit, 16x16 8-bit, 20x20 24-bit; the directory says 1x1 and 256x256.
        let at10 = try decode("mixed.ico", box: 10)
        #expect(at10.size == PixelSize(width: 10, height: 10) && at10.flags.contains(.thumbnail))
        let sixteen = try PixelBuffer(width: 16, height: 16, rgba: try reference("mixed-16x16"))
        #expect(at10.pixels.bytes == (try sixteen.resized(to: PixelSize(width: 10, height: 10), filter: .area)).bytes)
        #expect(try decode("mixed.ico", box: 4).size == PixelSize(width: 4, height: 4))
        #expect(try decode("mixed.ico", box: 17).size == PixelSize(width: 17, height: 17))
        #expect(try decode("mixed.ico", box: 500).size == PixelSize(width: 20, height: 20))
        #expect(try decode("pil-png.ico", box: 24).pixels.bytes
            == (try PixelBuffer(width: 32, height: 32, rgba: try reference("pil-png-32x32"))
                .resized(to: PixelSize(width: 24, height: 24), filter: .area)).bytes)
    }

    @Test func fourBitEntryIsReadToo() throws {
        // The 4-bit entry of mixed.ico is never chosen (the 8-bit one of the same size wins); the cursor holds it.
        let cursor = try decode("cursor.cur")
        #expect(cursor.pixels.bytes == (try reference("mixed-16x16-4bit")))
    }

    @Test func encodedIconsRoundTrip() throws {
        var bytes: [UInt8] = []
        for index in 0..<(40 * 30) { bytes += [UInt8(index % 256), UInt8(index / 7 % 256), 9, UInt8(index * 3 % 256)] }
        let pixels = try PixelBuffer(width: 40, height: 30, rgba: bytes)
        let data = try ICOCoder().encode(Image(pixels: pixels), as: .ico, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == .ico)
        let decoded = try ICOCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.bytes == pixels.bytes && decoded.hasAlpha)
        #expect(try ICOCoder().properties(of: data) == ImageProperties(of: decoded))
    }

    @Test func largeImagesAreReducedTo256() throws {
        let pixels = try PixelBuffer(width: 300, height: 150, filledWith: RGBA(10, 20, 30))
        let data = try ICOCoder().encode(Image(pixels: pixels), as: .ico, options: EncodeOptions())
        #expect(data[6] == 0 && data[7] == 128)  // 256 is written as 0
        #expect(try ICOCoder().properties(of: data).size == PixelSize(width: 256, height: 128))
        let small = try ICOCoder().encode(Image(pixels: pixels), as: .ico, options: EncodeOptions(maxPixelSize: 30))
        #expect(try ICOCoder().decode(small, options: DecodeOptions()).size == PixelSize(width: 30, height: 15))
        #expect(throws: ImageError.self) {
            try ICOCoder().encode(Image(pixels: pixels), as: .bmp, options: EncodeOptions())
        }
    }
}
