import Testing
@testable import WebImage

/// The fixed-point, SIMD resampler against a plain Double-precision one written from the filter definitions.
@Suite struct ResamplerTests {
    /// Weights for one output pixel: the kernel over its reach, edges repeated when enlarging, window cut and
    /// renormalised when reducing.
    static func referenceWeights(output: Int, sourceLength: Int, outputLength: Int,
                                 filter: ResamplingFilter) -> [Int: Double] {
        let scale = Double(sourceLength) / Double(outputLength)
        let filterScale = max(scale, 1)
        let center = (Double(output) + 0.5) * scale
        var weights: [Int: Double] = [:]
        let reach = Int((filter.support * filterScale).rounded(.up)) + 1
        for source in Int(center) - reach...Int(center) + reach {
            var weight: Double
            if filter == .area {
                if scale < 1 {
                    weight = Double(source) <= center && center < Double(source + 1) ? 1 : 0
                } else {
                    weight = max(0, min(Double(source + 1), center + scale / 2) - max(Double(source), center - scale / 2))
                }
            } else {
                weight = filter.weight((Double(source) + 0.5 - center) / filterScale)
            }
            guard weight != 0 else { continue }
            if scale > 1 && (source < 0 || source >= sourceLength) { continue }
            weights[min(max(source, 0), sourceLength - 1), default: 0] += weight
        }
        let total = weights.values.reduce(0, +)
        return weights.mapValues { $0 / total }
    }

    static func reference(_ pixels: PixelBuffer, to size: PixelSize, filter: ResamplingFilter) throws -> [Double] {
        let source = pixels.bytes.map(Double.init)
        var rows = [Double](repeating: 0, count: pixels.height * size.width * 4)
        for x in 0..<size.width {
            let weights = referenceWeights(output: x, sourceLength: pixels.width, outputLength: size.width, filter: filter)
            for y in 0..<pixels.height {
                for channel in 0..<4 {
                    rows[(y * size.width + x) * 4 + channel] = weights.reduce(0) {
                        $0 + $1.value * source[(y * pixels.width + $1.key) * 4 + channel]
                    }
                }
            }
        }
        var result = [Double](repeating: 0, count: size.area * 4)
        for y in 0..<size.height {
            let weights = referenceWeights(output: y, sourceLength: pixels.height, outputLength: size.height, filter: filter)
            for x in 0..<size.width {
                for channel in 0..<4 {
                    result[(y * size.width + x) * 4 + channel] = weights.reduce(0) {
                        $0 + $1.value * rows[($1.key * size.width + x) * 4 + channel]
                    }
                }
            }
        }
        return result
    }

    @Test(arguments: ResamplingFilter.allCases)
    func matchesADoublePrecisionReference(filter: ResamplingFilter) throws {
        // The texture squeezed into 64...191, so ringing never reaches the clamps at 0 and 255, which the
        // 8-bit intermediate applies between the passes and the reference does not.
        let texture = try TransformTestSupport.texture(width: 29, height: 17)
        let source = try PixelBuffer(width: 29, height: 17, rgba: texture.bytes.enumerated().map {
            $0.offset % 4 == 3 ? 255 : 64 + $0.element / 2
        })
        for size in [PixelSize(width: 7, height: 5), PixelSize(width: 11, height: 17), PixelSize(width: 29, height: 3),
                     PixelSize(width: 61, height: 40), PixelSize(width: 13, height: 33)] {
            let result = try source.resized(to: size, filter: filter).bytes
            let expected = try Self.reference(source, to: size, filter: filter)
            // Two 8-bit roundings (after each pass) and clamping of ringing: within 2 levels everywhere.
            let worst = zip(result, expected).map { abs(Double($0) - min(max($1, 0), 255)) }.max() ?? 0
            #expect(worst <= 2, "\(filter) to \(size): off by \(worst)")
        }
    }

    @Test func areaAveragesExactBlocks() throws {
        let pixels = try PixelBuffer(width: 4, height: 2, rgba: [
            0, 0, 0, 255, 100, 0, 0, 255, 10, 10, 10, 255, 30, 30, 30, 255,
            50, 0, 0, 255, 250, 0, 0, 255, 20, 20, 20, 255, 40, 40, 40, 255,
        ])
        let result = try pixels.resized(to: PixelSize(width: 2, height: 1), filter: .area)
        #expect(result[0, 0] == RGBA(100, 0, 0, 255))
        #expect(result[1, 0] == RGBA(25, 25, 25, 255))
    }

    @Test func wideWindowsUseTheWidePrecision() {
        let narrow = ResamplingWeights(sourceLength: 100, outputLength: 10, filter: .lanczos3)
        let wide = ResamplingWeights(sourceLength: 10_000, outputLength: 10, filter: .lanczos3)
        if case .narrow = narrow.storage {} else { Issue.record("a 10× reduction should use 16-bit weights") }
        guard case .wide(let values) = wide.storage else {
            Issue.record("a 1000× reduction should use 32-bit weights")
            return
        }
        // Each window's weights add up to exactly one.
        for output in 0..<10 {
            let sum = values[output * wide.taps..<output * wide.taps + wide.counts[output]].reduce(0, +)
            #expect(sum == 1 << Int32.precisionBits)
        }
    }

    @Test func regionsResampleOnlyThatPart() throws {
        let source = try TransformTestSupport.texture(width: 20, height: 10)
        let region = ResamplingRegion(x: 5, y: 2, width: 10, height: 6)
        let result = try source.resampled(to: PixelSize(width: 10, height: 6), from: region,
                                          horizontalFilter: .lanczos3, verticalFilter: .lanczos3, hasAlpha: false)
        for y in 0..<6 {
            for x in 0..<10 { #expect(result[x, y] == source[x + 5, y + 2]) }
        }
    }
}

@Suite struct ResamplerBehaviourTests {
    @Test(arguments: ResamplingFilter.allCases)
    func flatColourStaysExactlyFlat(_ filter: ResamplingFilter) throws {
        let flat = try PixelBuffer(width: 37, height: 23, filledWith: RGBA(10, 200, 77, 255))
        for size in [PixelSize(width: 5, height: 4), PixelSize(width: 80, height: 50), PixelSize(width: 37, height: 7)] {
            let result = try flat.resized(to: size, filter: filter)
            #expect(result.size == size)
            let bytes: [UInt8] = result.bytes
            let pixels: [ArraySlice<UInt8>] = stride(from: 0, to: bytes.count, by: 4).map { (i: Int) in
                bytes[i..<i + 4]
            }
            #expect(Set(pixels).count == 1)
            #expect(result[0, 0] == RGBA(10, 200, 77, 255))
        }
    }

    @Test func areaHalvingAveragesEachBlock() throws {
        // 4×2 → 2×1: each output pixel is the mean of a 2×2 block.
        let values: [UInt8] = [0, 100, 200, 50, 40, 60, 0, 250]
        let source = try PixelBuffer(width: 4, height: 2, rgba: values.flatMap { [$0, $0, $0, 255] })
        let result = try source.resized(to: PixelSize(width: 2, height: 1), filter: .area)
        #expect(result[0, 0].r == 50)   // (0 + 100 + 40 + 60) / 4
        #expect(result[1, 0].r == 125)  // (200 + 50 + 0 + 250) / 4
    }

    @Test func areaReductionByNonIntegerFactorWeighsPartialPixels() throws {
        // 3 → 2 pixels: output 0 covers source 0 fully and half of source 1.
        let source = try PixelBuffer(width: 3, height: 1, rgba: [0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255])
        let result = try source.resized(to: PixelSize(width: 2, height: 1), filter: .area)
        #expect(result[0, 0].r == 30)   // (0 × 1 + 90 × 0.5) / 1.5
        #expect(result[1, 0].r == 150)  // (90 × 0.5 + 180 × 1) / 1.5
    }

    @Test(arguments: ResamplingFilter.allCases)
    func transparentNeighboursDoNotDarkenEdges(_ filter: ResamplingFilter) throws {
        // Opaque red beside fully transparent black: with straight-alpha averaging the red would turn dark.
        var bytes: [UInt8] = []
        for _ in 0..<8 { for x in 0..<8 { bytes += x < 4 ? [255, 0, 0, 255] : [0, 0, 0, 0] } }
        let source = try PixelBuffer(width: 8, height: 8, rgba: bytes)
        let result = try source.resized(to: PixelSize(width: 3, height: 3), filter: filter)
        for y in 0..<3 {
            let edge = result[1, y]
            #expect(edge.a > 0 && edge.a < 255)
            #expect(edge.r >= 250, "colour bled toward black: \(edge)")
            #expect(edge.g == 0 && edge.b == 0)
        }
    }

    @Test func sameSizeIsTheSameBuffer() throws {
        let source = try PixelBuffer(width: 4, height: 4, filledWith: RGBA(1, 2, 3, 4))
        #expect(try source.resized(to: source.size).storage === source.storage)
    }

    @Test func refusesEmptySizes() throws {
        let source = try PixelBuffer(width: 4, height: 4)
        #expect(throws: ImageError.self) { try source.resized(to: PixelSize(width: 0, height: 3)) }
        #expect(throws: ImageError.self) { try source.resized(to: PixelSize(width: 3, height: -1)) }
    }

    @Test func upscalingInterpolatesSmoothly() throws {
        let source = try PixelBuffer(width: 2, height: 1, rgba: [0, 0, 0, 255, 200, 200, 200, 255])
        let result = try source.resized(to: PixelSize(width: 8, height: 1), filter: .bilinear)
        let reds = (0..<8).map { Int(result[$0, 0].r) }
        #expect(reds == reds.sorted(), "a linear ramp must not go backwards: \(reds)")
        #expect(reds.first == 0 && reds.last == 200)
    }
}
