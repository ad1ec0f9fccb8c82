import Foundation
import Testing
@testable import WebImage

/// Bitmaps of 16 bits a sample: the transformers keep them, in 16 bits, where the 8-bit pipeline would round, and
/// PNG reads and writes them.
@Suite struct DeepPixelBufferTests {
    /// A `width` × `height` bitmap whose samples are all different and mostly not 8-bit values widened.
    static func ramp(width: Int, height: Int, alpha: Bool = false) throws -> DeepPixelBuffer {
        var samples: [UInt16] = []
        for y in 0..<height {
            for x in 0..<width {
                samples += [UInt16((x * 4099 + y * 71) % 65_536), UInt16((65_535 - x * 2053 + y * 3) & 0xFFFF),
                            UInt16((y * 5003 + x * 13) % 65_536), alpha ? UInt16(20_000 + (x * 977) % 45_000) : 65_535]
            }
        }
        return try DeepPixelBuffer(width: width, height: height, samples: samples)
    }

    static func image(_ deep: DeepPixelBuffer) throws -> Image {
        Image(frames: [try ImageFrame(deep: deep)], flags: deep.containsTransparency ? .hasAlpha : [])
    }

    @Test func quarterTurnsFlipsCropsAndCanvasesMoveDeepPixelsAsThe8BitOnesMove() throws {
        let bytes = (0..<60).map { (index: Int) -> UInt8 in UInt8((index * 37 + 11) % 256) }
        let pixels = try PixelBuffer(width: 5, height: 3, rgba: bytes)
        let deep = try DeepPixelBuffer(widening: pixels)
        for orientation in Orientation.allCases {
            #expect(try deep.applying(orientation) == DeepPixelBuffer(widening: pixels.applying(orientation)),
                    "\(orientation)")
        }
        let rect = PixelRect(x: 1, y: 1, width: 3, height: 2)
        #expect(try deep.cropped(to: rect) == DeepPixelBuffer(widening: pixels.cropped(to: rect)))
        #expect(try deep.centered(on: PixelSize(width: 9, height: 4))
                == DeepPixelBuffer(widening: pixels.centered(on: PixelSize(width: 9, height: 4))))
        let placed = try deep.embedded(in: PixelSize(width: 8, height: 6), at: (2, 3))
        let corners: [SIMD4<UInt16>] = [placed[2, 3], placed[6, 5], placed[1, 3]]
        let expected: [SIMD4<UInt16>] = [deep[0, 0], deep[4, 2], SIMD4(repeating: 0)]
        #expect(corners == expected)
    }

    @Test func aDeepRampHalvedByAreaAveragingKeepsItsSixteenBits() throws {
        // Each output pixel is the mean of a 2 × 2 block: computed here, exactly.
        let deep = try Self.ramp(width: 64, height: 32)
        let half = try ImageTransformers.Resize(to: PixelSize(width: 32, height: 16), filter: .area)
            .transform(Self.image(deep))
        let result = try #require(half.frames[0].deepPixels)
        var largest = 0, notEightBit = 0
        for y in 0..<16 {
            for x in 0..<32 {
                for channel in 0..<3 {
                    let block = [deep[2 * x, 2 * y], deep[2 * x + 1, 2 * y], deep[2 * x, 2 * y + 1],
                                 deep[2 * x + 1, 2 * y + 1]].map { Double($0[channel]) }
                    let mean = block.reduce(0, +) / 4
                    largest = max(largest, Int(abs(Double(result[x, y][channel]) - mean).rounded(.up)))
                    if result[x, y][channel] % 257 != 0 { notEightBit += 1 }
                }
            }
        }
        #expect(largest <= 2, "off by \(largest) of 65 535")
        #expect(notEightBit > 1000)
        #expect(try half.pixels.bytes == result.eightBitPixels().bytes)
    }

    @Test func transformsWithoutADeepPathMakeAnEightBitFrame() throws {
        let image = try Self.image(Self.ramp(width: 8, height: 8))
        // A filter without a 16-bit body works on the 8-bit pixels: what it returns has no 16-bit version.
        let filtered = try ImageTransformers.Filter(name: "invert") { pixels in
            try PixelBuffer(width: pixels.width, height: pixels.height, rgba: pixels.bytes.map { 255 - $0 })
        }.transform(image)
        #expect(filtered.frames[0].deepPixels == nil)
        var frame = image.frames[0]
        frame.pixels = try PixelBuffer(width: 8, height: 8)
        #expect(frame.deepPixels == nil)
    }

    @Test func blurCornersTintAndRotationInSixteenBitsRoundToWhatTheEightBitOnesGive() throws {
        let bytes = (0..<(40 * 30 * 4)).map { (index: Int) -> UInt8 in
            index % 4 == 3 ? 255 : UInt8((index * 13 / 4) % 256)
        }
        let pixels = try PixelBuffer(width: 40, height: 30, rgba: bytes)
        let eightBit = Image(pixels: pixels, hasAlpha: false)
        let deep = try Self.image(DeepPixelBuffer(widening: pixels))
        for transformer in [ImageTransformers.Blur(radius: 2.5) as any ImageTransformer,
                            ImageTransformers.RoundCorners(radius: 9, borderWidth: 2, borderColor: RGBA(0, 90, 200)),
                            ImageTransformers.Tint(RGBA(255, 40, 0, 128), blendMode: .overlay),
                            ImageTransformers.Tint(RGBA(0, 200, 90, 200)),
                            ImageTransformers.Rotate(degrees: 33, fitSize: true)] {
            let ours = try transformer.transform(deep)
            let reference = try transformer.transform(eightBit).pixels.bytes
            let rounded = try #require(ours.frames[0].deepPixels).eightBitPixels().bytes
            // Compared premultiplied: where a rotation's edge leaves a pixel nearly transparent, its straight colour
            // is a quotient of two small numbers, which the 8-bit path rounds far more coarsely.
            func premultiplied(_ bytes: [UInt8], _ index: Int) -> Int {
                index % 4 == 3 ? Int(bytes[index]) : Int(bytes[index]) * Int(bytes[index | 3]) / 255
            }
            let largest = rounded.indices.map { abs(premultiplied(rounded, $0) - premultiplied(reference, $0)) }
                .max() ?? 0
            #expect(largest <= 2, "\(transformer.key) off by \(largest)")
            #expect(ours.pixels.bytes == rounded)
        }
        // A flat image stays exactly flat through the blur's sixteen bits.
        let flat = try Self.image(DeepPixelBuffer(width: 16, height: 16,
                                                  samples: Array(repeating: [40_001, 123, 65_000, 65_535], count: 256)
                                                      .flatMap { $0 }))
        let blurred = try #require(try ImageTransformers.Blur(radius: 3).transform(flat).frames[0].deepPixels)
        #expect(Set(blurred.samples).count <= 4 && blurred[7, 9] == SIMD4(40_001, 123, 65_000, 65_535))
    }

    @Test func aTintAndAFreeAngleRotationKeepSixteenBits() throws {
        let image = try Self.image(Self.ramp(width: 24, height: 16, alpha: true))
        let source = try #require(image.frames[0].deepPixels)
        let tint = ImageTransformers.Tint(RGBA(255, 128, 0, 255), blendMode: .multiply)
        let tinted = try #require(try tint.transform(image).frames[0].deepPixels)
        // Multiply by an opaque tint: each channel times the tint's, alpha untouched, to the 16-bit sample.
        for (x, y) in [(0, 0), (5, 3), (23, 15), (11, 8)] {
            let pixel = source[x, y], result = tinted[x, y]
            #expect(result[0] == pixel[0] && result[3] == pixel[3])
            #expect(result[1] == UInt16((Double(pixel[1]) * 128 / 255).rounded()))
            #expect(result[2] == 0)
        }
        let turned = try ImageTransformers.Rotate(degrees: 30, fitSize: true).transform(image)
        let deep = try #require(turned.frames[0].deepPixels)
        #expect(deep.size == turned.pixels.size && deep.size == PixelSize(width: 29, height: 26))
        // Interpolated in floating point: most samples are not 8-bit values widened.
        let notEightBit = deep.samples.filter { $0 % 257 != 0 }.count
        #expect(notEightBit > deep.samples.count / 2)
        // The centre of a turn about the centre stays where it was.
        let centre = deep[14, 13], middle = source[12, 8]
        #expect(abs(Int(centre[3]) - Int(middle[3])) < 3_000)
    }

    @Test func sixteenBitPNGsRoundTripEverySampleAndGraySourcesStayGray() throws {
        for alpha in [false, true] {
            let deep = try Self.ramp(width: 33, height: 17, alpha: alpha)
            let png = try ImageCoders.shared.encode(Self.image(deep), as: .png)
            #expect(png[24] == 16, "bit depth")
            #expect(png[25] == (alpha ? 6 : 2), "colour type")
            let decoded = try ImageCoders.shared.decode(png, options: DecodeOptions(keepsHighBitDepth: true))
            #expect(decoded.frames[0].deepPixels == deep)
            #expect(decoded.hasAlpha == alpha)
            // Without asking, the same file decodes to 8 bits, each sample the nearest.
            let plain = try ImageCoders.shared.decode(png)
            let rounded = try deep.eightBitPixels().bytes
            #expect(plain.frames[0].deepPixels == nil && plain.pixels.bytes == rounded)
        }
        let gray = try DeepPixelBuffer(width: 20, height: 2, samples: (0..<40).flatMap { index -> [UInt16] in
            let level = UInt16(index * 1601 + 7)
            return [level, level, level, 65_535]
        })
        let grayPNG = try ImageCoders.shared.encode(Self.image(gray), as: .png)
        #expect(grayPNG[24] == 16 && grayPNG[25] == 0)
        #expect(try ImageCoders.shared.decode(grayPNG, options: DecodeOptions(keepsHighBitDepth: true))
            .frames[0].deepPixels == gray)
        // Gray samples tagged with an RGB profile stay RGB: PNG allows an RGB profile only on an RGB image.
        var tagged = try Self.image(gray)
        tagged.colorProfile = .displayP3
        let taggedPNG = try ImageCoders.shared.encode(tagged, as: .png)
        #expect(taggedPNG[24] == 16 && taggedPNG[25] == 2)
        let original = DecodeOptions(colorHandling: .original, keepsHighBitDepth: true)
        let reread = try ImageCoders.shared.decode(taggedPNG, options: original)
        #expect(reread.colorProfile?.space == .displayP3 && reread.frames[0].deepPixels == gray)
    }

    @Test func aDeepDecodeIsTurnedUprightAndReducedInSixteenBits() throws {
        let deep = try Self.ramp(width: 40, height: 20)
        let png = try ImageCoders.shared.encode(Self.image(deep), as: .png)
        let small = try ImageCoders.shared.decode(png, options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 10, height: 5), keepsHighBitDepth: true))
        let reduced = try #require(small.frames[0].deepPixels)
        #expect(reduced.size == PixelSize(width: 10, height: 5) && small.flags.contains(.thumbnail))
        // The first output pixel is the mean of the 4 × 4 block it covers.
        let mean = (0..<16).map { Double(deep[$0 % 4, $0 / 4][0]) }.reduce(0, +) / 16
        #expect(abs(Double(reduced[0, 0][0]) - mean) <= 2)
        let fitted = try ImageCoders.shared.encode(Self.image(deep), as: .png, options: EncodeOptions(maxPixelSize: 20))
        #expect(try ImageCoders.shared.decode(fitted, options: DecodeOptions(keepsHighBitDepth: true))
            .frames[0].deepPixels?.size == PixelSize(width: 20, height: 10))
    }

    /// A 16-bit gray PNG with a gray profile (gamma 1.8) keeps its 16 bits through the conversion to sRGB, which
    /// the 8-bit path rounds to within a level.
    @Test func aSixteenBitGrayPNGWithAGrayProfileIsConvertedInSixteenBits() throws {
        let icc = try #require(LittleCMSProfile.gray(curve: .gamma(1.8), description: "Gray 1.8")?.serialized())
        var levels: [UInt16] = []
        for index in 0..<(64 * 4) {
            let level = UInt16(index * 251 + 9)
            levels += [level, level, level, 65_535]
        }
        var tagged = try Self.image(DeepPixelBuffer(width: 64, height: 4, samples: levels))
        tagged.colorProfile = ColorProfile(icc: icc)
        #expect(tagged.colorProfile?.space == .gray)
        let png = try ImageCoders.shared.encode(tagged, as: .png)
        #expect(png[24] == 16 && png[25] == 0)
        let kept = try ImageCoders.shared.decode(png, options: DecodeOptions(keepsHighBitDepth: true))
        let deep = try #require(kept.frames[0].deepPixels)
        #expect(kept.colorProfile == nil && deep.samples != levels)
        #expect(deep.samples.filter { $0 % 257 != 0 }.count > deep.samples.count / 2)
        let eightBit = try ImageCoders.shared.decode(png).pixels.bytes
        let rounded = try deep.eightBitPixels().bytes
        let largest = zip(rounded, eightBit).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= 1, "off by \(largest) from the 8-bit conversion")
    }

    /// A damaged or cut 16-bit file asked to keep its bits is refused with a typed error, never half-decoded.
    @Test func damagedSixteenBitPNGsAreRefusedWhenKeptDeep() throws {
        let png = try ImageCoders.shared.encode(Self.image(Self.ramp(width: 48, height: 40, alpha: true)), as: .png)
        let keeping = DecodeOptions(keepsHighBitDepth: true)
        for length in [0, 8, 30, 60, png.count / 2, png.count - 13, png.count - 1] {
            var code: ImageError.Code?
            do {
                _ = try ImageCoders.shared.decode(png.prefix(length), options: keeping)
            } catch let error as ImageError {
                code = error.code
            }
            #expect(code == .badImageData || code == .unsupportedFormat,
                    "cut to \(length) bytes: \(String(describing: code))")
        }
        var flipped = png
        flipped[flipped.count / 2] ^= 0x5A
        #expect(throws: ImageError.self) { try ImageCoders.shared.decode(flipped, options: keeping) }
    }
}
