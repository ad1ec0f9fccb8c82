import Foundation
import Testing
@testable import WebImage

/// The BMP writer: 24-bit for opaque images, 32-bit V5 BGRA for images with alpha, and exact round trips.
@Suite struct BMPEncodingTests {
    private func pattern(width: Int, height: Int, alpha: Bool) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let a: UInt8 = alpha ? UInt8(truncatingIfNeeded: x * 37 + y * 11) : 255
                bytes += [UInt8(truncatingIfNeeded: x * 9), UInt8(truncatingIfNeeded: y * 15),
                          UInt8(truncatingIfNeeded: x * y), a]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    private func uint(_ data: Data, _ offset: Int, _ width: Int = 4) -> Int {
        (0..<width).reduce(0) { $0 | Int(data[data.startIndex + offset + $1]) << (8 * $1) }
    }

    @Test(arguments: [(1, 1), (2, 3), (33, 17), (5, 40)])
    func opaqueImagesRoundTripAs24Bit(_ size: (Int, Int)) throws {
        let pixels = try pattern(width: size.0, height: size.1, alpha: false)
        let data = try BMPCoder().encode(Image(pixels: pixels), as: .bmp, options: EncodeOptions())
        #expect(ImageFormat.detect(data) == .bmp || data.count < 26)
        #expect(uint(data, 14) == 40 && uint(data, 28, 2) == 24 && uint(data, 30) == 0)
        #expect(uint(data, 2) == data.count)
        let stride = (size.0 * 3 + 3) / 4 * 4
        #expect(data.count == 54 + stride * size.1)
        let decoded = try BMPCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(!decoded.hasAlpha)
    }

    @Test(arguments: [(1, 1), (33, 17), (7, 2)])
    func imagesWithAlphaRoundTripAs32BitV5(_ size: (Int, Int)) throws {
        let pixels = try pattern(width: size.0, height: size.1, alpha: true)
        let image = Image(pixels: pixels, hasAlpha: true)
        let data = try BMPCoder().encode(image, as: .bmp, options: EncodeOptions())
        #expect(uint(data, 14) == 124 && uint(data, 28, 2) == 32 && uint(data, 30) == 3)
        #expect(uint(data, 66) == 0xFF00_0000)
        #expect(data.count == 138 + size.0 * size.1 * 4)
        let decoded = try BMPCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha)
        #expect(try BMPCoder().properties(of: data) == ImageProperties(of: decoded))
    }

    @Test func fixturesRoundTrip() throws {
        for name in BMPDecodingTests.names {
            let original = try BMPCoder().decode(Fixtures.data("bmp/\(name).bmp"), options: DecodeOptions())
            let data = try BMPCoder().encode(original, as: .bmp, options: EncodeOptions())
            let again = try BMPCoder().decode(data, options: DecodeOptions())
            #expect(again.pixels.bytes == original.pixels.bytes, "\(name)")
            #expect(again.hasAlpha == original.hasAlpha, "\(name)")
        }
    }

    @Test func maxPixelSizeShrinksAndOtherFormatsAreRefused() throws {
        let image = Image(pixels: try pattern(width: 40, height: 20, alpha: false))
        let data = try BMPCoder().encode(image, as: .bmp, options: EncodeOptions(maxPixelSize: 10))
        #expect(try BMPCoder().properties(of: data).size == PixelSize(width: 10, height: 5))
        #expect(throws: ImageError.self) { try BMPCoder().encode(image, as: .png, options: EncodeOptions()) }
        #expect(BMPCoder().canEncode(to: .bmp) && !BMPCoder().canEncode(to: .ico))
    }
}
