import Foundation
import Testing
@testable import WebImage

/// BMP files written by ImageMagick, Pillow-style writers and by hand, decoded and compared with references
/// made by another decoder (Pillow, or ImageMagick where Pillow cannot read the file) or by hand.
@Suite struct BMPDecodingTests {
    /// Every fixture and whether its decode reports alpha.
    static let fixtures: [(name: String, hasAlpha: Bool)] = [
        ("im-rgb24", false), ("im-core24", false), ("im-core-pal8", false), ("im-pal8", false), ("im-pal4", false),
        ("im-pal1", false), ("im-rle8", false), ("im-v5-rgb565", false), ("im-v5-rgb555", false),
        ("im-v5-argb32", true), ("im-v5-argb4444", true), ("im-v5-argb1555", true), ("info-bgrx32", false),
        ("info-rgb555", false), ("topdown-rgb24", false), ("v5-bgr0-rgb32", false), ("v5-bgra-rgb32", true),
        ("v4-argb32", true), ("alphabitfields-argb4444", true), ("v5-a2r10g10b10", true), ("rle4", false),
        ("rle8-delta", false), ("pal8-short-table", false),
    ]
    static let names = fixtures.map(\.name)

    @Test(arguments: fixtures.map { $0 })
    func decodesLikeTheReference(_ fixture: (name: String, hasAlpha: Bool)) throws {
        let data = try Fixtures.data("bmp/\(fixture.name).bmp")
        let reference = [UInt8](try Fixtures.data("bmp/\(fixture.name).rgba"))
        #expect(ImageFormat.detect(data) == .bmp)
        let image = try BMPCoder().decode(data, options: DecodeOptions())
        #expect(image.format == .bmp)
        #expect(image.frames.count == 1)
        #expect(image.size.area * 4 == reference.count)
        let difference = PixelComparison.maxDifference(image.pixels.bytes, reference)
        #expect(difference == 0, "\(fixture.name): max difference \(difference)")
        #expect(image.hasAlpha == fixture.hasAlpha)
        #expect(!image.flags.contains(.thumbnail))
    }

    @Test(arguments: names)
    func propertiesAgreeWithTheDecode(_ name: String) throws {
        let data = try Fixtures.data("bmp/\(name).bmp")
        let properties = try BMPCoder().properties(of: data)
        #expect(properties == ImageProperties(of: try BMPCoder().decode(data, options: DecodeOptions())))
        #expect(properties.format == .bmp && properties.frameCount == 1 && properties.frameDurations.isEmpty)
    }

    @Test func sizesComeFromTheHeader() throws {
        let rgb = try BMPCoder().properties(of: Fixtures.data("bmp/im-rgb24.bmp"))
        #expect(rgb.size == PixelSize(width: 33, height: 17))
        #expect(try BMPCoder().properties(of: Fixtures.data("bmp/rle4.bmp")).size == PixelSize(width: 7, height: 5))
        #expect(try BMPCoder().properties(of: Fixtures.data("bmp/topdown-rgb24.bmp")).size.height == 17)
    }

    @Test func topDownAndBottomUpGiveTheSamePixels() throws {
        let bottomUp = try BMPCoder().decode(Fixtures.data("bmp/im-rgb24.bmp"), options: DecodeOptions())
        let topDown = try BMPCoder().decode(Fixtures.data("bmp/topdown-rgb24.bmp"), options: DecodeOptions())
        #expect(bottomUp.pixels.bytes == topDown.pixels.bytes)
    }

    @Test func thumbnailIsTheAreaAverageOfTheFullDecode() throws {
        let data = try Fixtures.data("bmp/v5-bgra-rgb32.bmp")
        let full = try BMPCoder().decode(data, options: DecodeOptions())
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let thumbnail = try BMPCoder().decode(data, options: box)
        #expect(thumbnail.size == PixelSize(width: 16, height: 8))
        #expect(thumbnail.flags.contains(.thumbnail))
        #expect(thumbnail.hasAlpha)
        let expected = try full.pixels.resized(to: PixelSize(width: 16, height: 8), filter: .area)
        #expect(thumbnail.pixels.bytes == expected.bytes)
    }

    @Test func scaleComesFromTheFileName() throws {
        let options = DecodeOptions(fileNameHint: "x@2x.bmp")
        let image = try BMPCoder().decode(Fixtures.data("bmp/rle4.bmp"), options: options)
        #expect(image.scale == 2)
    }

    @Test func frameZeroIsTheImageAndFrameOneIsInvalid() throws {
        let data = try Fixtures.data("bmp/rle4.bmp")
        #expect(try BMPCoder().decode(data, options: DecodeOptions(frameIndex: 0)).size.width == 7)
        #expect(throws: ImageError.self) { try BMPCoder().decode(data, options: DecodeOptions(frameIndex: 1)) }
    }

    @Test func channelMasksScaleToEightBits() throws {
        let five = try BMPChannelMask(0x7C00)
        #expect(five.bits == 5 && five.shift == 10)
        #expect(five.value(of: 0x7C00) == 255 && five.value(of: 0) == 0 && five.value(of: 16 << 10) == 131)
        let ten = try BMPChannelMask(0x3FF)
        #expect(ten.value(of: 0x3FF) == 255 && ten.value(of: 0x200) == 128 && ten.value(of: 0x1FF) == 127)
        let one = try BMPChannelMask(0x8000)
        #expect(one.value(of: 0x8000) == 255)
        let whole = try BMPChannelMask(0xFFFF_FFFF)
        #expect(whole.value(of: 0xFF00_0000) == 255 && whole.value(of: 0x00FF_FFFF) == 0)
        #expect(throws: ImageError.self) { try BMPChannelMask(0x0F0F) }
    }
}
