import Testing
@testable import WebImage

@Suite struct ResamplerTests {
    @Test(arguments: ResamplingFilter.allCases)
    func flatColourStaysExactlyFlat(_ filter: ResamplingFilter) throws {
        let flat = try PixelBuffer(width: 37, height: 23, filledWith: RGBA(10, 200, 77, 255))
        for size in [PixelSize(width: 5, height: 4), PixelSize(width: 80, height: 50), PixelSize(width: 37, height: 7)] {
            let result = try flat.resized(to: size, filter: filter)
            #expect(result.size == size)
            #expect(Set(stride(from: 0, to: result.byteCount, by: 4).map { i in result.bytes[i..<i + 4] }).count == 1)
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
