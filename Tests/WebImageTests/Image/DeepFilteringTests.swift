import Testing
@testable import WebImage

/// The filters written once for both depths (resampler, blur, free-angle rotation), run on 16-bit samples with
/// transparency: premultiplied in 16 bits, rounding to what the 8-bit path gives, keeping bits the 8-bit path drops.
@Suite struct DeepFilteringTests {
    static let filters: [any ImageTransformer] = [
        ImageTransformers.Resize(to: PixelSize(width: 19, height: 7), filter: .lanczos3),
        ImageTransformers.Resize(to: PixelSize(width: 61, height: 25), filter: .lanczos3),
        ImageTransformers.Blur(radius: 2),
        ImageTransformers.Rotate(degrees: 21, fitSize: true),
    ]

    @Test func transparentNeighboursLendNoColourToSixteenBitFilters() throws {
        // Left half opaque blue, right half fully transparent with green stored under it: filtered straight,
        // the green would bleed into the blue edge.
        var samples: [UInt16] = []
        for _ in 0..<12 {
            for x in 0..<40 { samples += x < 20 ? [0, 0, 65_535, 65_535] : [0, 65_535, 0, 0] }
        }
        let image = try DeepPixelBufferTests.image(DeepPixelBuffer(width: 40, height: 12, samples: samples))
        for filter in Self.filters {
            let result = try #require(try filter.transform(image).frames[0].deepPixels)
            var partlyCovered = 0
            for y in 0..<result.height {
                for x in 0..<result.width {
                    let pixel = result[x, y]
                    #expect(pixel[1] == 0, "\(filter.key) put green \(pixel[1]) at (\(x), \(y))")
                    if pixel[3] > 0 && pixel[3] < 65_535 { partlyCovered += 1 }
                }
            }
            #expect(partlyCovered > 0, "\(filter.key) left no edge")
        }
    }

    @Test func sixteenBitFiltersOfATransparentRampRoundToTheEightBitResultsAndKeepTheirBits() throws {
        let deep = try DeepPixelBufferTests.ramp(width: 37, height: 23, alpha: true)
        let eightBit = Image(pixels: try deep.eightBitPixels(), hasAlpha: true)
        let image = try DeepPixelBufferTests.image(deep)
        for filter in Self.filters {
            let ours = try #require(try filter.transform(image).frames[0].deepPixels)
            let reference = try filter.transform(eightBit).pixels.bytes
            let rounded = try ours.eightBitPixels().bytes
            #expect(rounded.count == reference.count)
            // Premultiplied, as where alpha is small the straight colour is a quotient of two small numbers.
            func premultiplied(_ bytes: [UInt8], _ index: Int) -> Int {
                index % 4 == 3 ? Int(bytes[index]) : Int(bytes[index]) * Int(bytes[index | 3]) / 255
            }
            let largest = rounded.indices.map { abs(premultiplied(rounded, $0) - premultiplied(reference, $0)) }
                .max() ?? 0
            #expect(largest <= 3, "\(filter.key) off by \(largest)")
            let notEightBit = ours.withUnsafeSamples { $0.filter { $0 % 257 != 0 }.count }
            #expect(notEightBit > ours.width * ours.height * 2, "\(filter.key) kept \(notEightBit) deep samples")
        }
    }

    @Test func sixteenBitPremultiplicationRoundTripsWithinAStepOfItsAlpha() {
        var pixels: [UInt16] = []
        for alpha in [0, 1, 257, 9_999, 32_768, 65_534, 65_535] as [UInt16] {
            for colour in [0, 1, 12_345, 40_000, 65_535] as [UInt16] {
                pixels += [colour, 65_535 - colour, colour / 3, alpha]
            }
        }
        let original = pixels
        let count = pixels.count / 4
        pixels.withUnsafeMutableBufferPointer { samples in
            UInt16.premultiply(samples.baseAddress!, into: samples.baseAddress!, pixels: count)
        }
        for index in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Double(original[index + 3])
            for channel in 0..<3 {
                let exact = Double(original[index + channel]) * alpha / 65_535
                #expect(abs(Double(pixels[index + channel]) - exact) <= 0.5)
            }
        }
        pixels.withUnsafeMutableBufferPointer { UInt16.unpremultiply($0.baseAddress!, pixels: count) }
        for index in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(original[index + 3])
            #expect(Int(pixels[index + 3]) == alpha)
            for channel in 0..<3 {
                let error = abs(Int(pixels[index + channel]) - Int(original[index + channel]))
                // A sample premultiplied by alpha a keeps a of its 65 536 steps: back, it is within 65 535 / a.
                if alpha == 0 {
                    #expect(pixels[index + channel] == 0)
                } else {
                    #expect(error <= 65_535 / alpha + 1, "alpha \(alpha) colour \(original[index + channel])")
                }
            }
        }
        #expect(Array(pixels[(pixels.count - 20)...]) == Array(original[(original.count - 20)...]))
    }

    @Test func deepBuffersCompareBySamplesAndHandTheirSamplesOut() throws {
        let a = try DeepPixelBufferTests.ramp(width: 9, height: 5, alpha: true)
        var samples = a.samples
        let b = try DeepPixelBuffer(width: 9, height: 5, samples: samples)
        #expect(a == b)
        samples[17] ^= 1
        #expect(try a != DeepPixelBuffer(width: 9, height: 5, samples: samples))
        #expect(try a != DeepPixelBuffer(width: 9, height: 5, significantBits: 12, samples: a.samples))
        #expect(a.withUnsafeSamples { Array($0) } == a.samples && a.byteCount == 9 * 5 * 8)
        #expect(throws: ImageError.self) {
            try DeepPixelBuffer(width: 9, height: 5, samples: Array(samples.dropLast()))
        }
        #expect(throws: ImageError.self) { try DeepPixelBuffer(width: 0, height: 5, samples: []) }
    }

    @Test func aFilterWithASixteenBitBodyKeepsSixteenBitFramesAndOnlyThose() throws {
        let invert = ImageTransformers.Filter(name: "invert", deep: { deep in
            try DeepPixelBuffer(width: deep.width, height: deep.height, significantBits: deep.significantBits) {
                destination in
                deep.withUnsafeSamples { source in
                    for index in source.indices { destination[index] = index % 4 == 3 ? 0 : 65_535 - source[index] }
                }
            }
        }) { pixels in
            try PixelBuffer(width: pixels.width, height: pixels.height,
                            rgba: pixels.bytes.enumerated().map { $0.offset % 4 == 3 ? 0 : 255 - $0.element })
        }
        let deep = try DeepPixelBufferTests.ramp(width: 6, height: 4)
        let result = try invert.transform(DeepPixelBufferTests.image(deep))
        let inverted = try #require(result.frames[0].deepPixels)
        #expect(inverted[5, 3] == SIMD4(65_535 - deep[5, 3][0], 65_535 - deep[5, 3][1], 65_535 - deep[5, 3][2], 0))
        #expect(try result.pixels.bytes == inverted.eightBitPixels().bytes)
        // The result's transparency is measured from what the deep body made.
        #expect(result.hasAlpha)
        // An 8-bit frame goes through the 8-bit body.
        let eightBit = try invert.transform(Image(pixels: try deep.eightBitPixels(), hasAlpha: false))
        #expect(eightBit.frames[0].deepPixels == nil && eightBit.pixels[0, 0].a == 0)
    }
}
