import Testing
@testable import WebImage

@Suite struct RoundCornersTests {
    let white = RGBA(255, 255, 255, 255)

    func whiteSquare(_ side: Int = 20) throws -> Image {
        Image(pixels: try PixelBuffer(width: side, height: side, filledWith: white), format: .jpeg)
    }

    @Test func cornersBecomeTransparentAndTheRestStays() throws {
        let result = try ImageTransformers.RoundCorners(radius: 6).transform(whiteSquare())
        #expect(result.hasAlpha)
        #expect(result.format == .jpeg)
        let pixels = result.pixels
        for (x, y) in [(0, 0), (19, 0), (0, 19), (19, 19), (1, 0), (0, 1)] {
            #expect(pixels[x, y] == RGBA(0, 0, 0, 0), "(\(x), \(y))")
        }
        for (x, y) in [(10, 10), (10, 0), (0, 10), (19, 10), (10, 19), (6, 0), (13, 19)] {
            #expect(pixels[x, y] == white, "(\(x), \(y))")
        }
        // The arc is anti-aliased: partly covered pixels, still white (no dark fringe).
        var partial = 0
        for y in 0..<20 {
            for x in 0..<20 where pixels[x, y].a > 0 && pixels[x, y].a < 255 {
                partial += 1
                #expect(pixels[x, y].r == 255 && pixels[x, y].g == 255 && pixels[x, y].b == 255)
            }
        }
        #expect(partial >= 8)
    }

    @Test func coverageFollowsTheCircle() throws {
        let result = try ImageTransformers.RoundCorners(radius: 10).transform(whiteSquare())
        // Pixel (2, 2) has its centre (2.5, 2.5) 7.5·√2 = 10.61 from the corner's centre (10, 10), 0.61
        // outside the arc: coverage 0.5 − 0.61 < 0 → transparent. Pixel (3, 3): 9.19 from it, 0.81 inside →
        // fully covered.
        #expect(result.pixels[2, 2].a == 0)
        #expect(result.pixels[3, 3].a == 255)
        // Pixel (1, 10) is 8.52 from the centre, fully covered; pixel (0, 7) has its centre (0.5, 7.5) 9.823
        // from (10, 10): 0.177 inside, coverage 0.677 → alpha 173.
        #expect(result.pixels[1, 10].a == 255)
        #expect(abs(Int(result.pixels[0, 7].a) - 173) <= 1)
    }

    @Test func onlyTheChosenCornersAreRounded() throws {
        let result = try ImageTransformers.RoundCorners(radius: 6, corners: [.topLeft, .bottomRight]).transform(whiteSquare())
        #expect(result.pixels[0, 0].a == 0)
        #expect(result.pixels[19, 19].a == 0)
        #expect(result.pixels[19, 0] == white)
        #expect(result.pixels[0, 19] == white)
    }

    @Test func borderIsDrawnInsideTheOutline() throws {
        let blue = RGBA(0, 0, 255, 255)
        let result = try ImageTransformers.RoundCorners(radius: 6, borderWidth: 2, borderColor: blue).transform(whiteSquare())
        let pixels = result.pixels
        for (x, y) in [(10, 0), (10, 1), (0, 10), (1, 10), (19, 10), (10, 18)] {
            #expect(pixels[x, y] == blue, "(\(x), \(y)) is \(pixels[x, y])")
        }
        for (x, y) in [(10, 2), (2, 10), (10, 10), (17, 10)] {
            #expect(pixels[x, y] == white, "(\(x), \(y)) is \(pixels[x, y])")
        }
        #expect(pixels[0, 0].a == 0)
        // Along the rounded part of the border, blue blends into white without going dark.
        for y in 0..<20 {
            for x in 0..<20 where pixels[x, y].a == 255 {
                #expect(Int(pixels[x, y].r) == Int(pixels[x, y].g) && pixels[x, y].b == 255, "(\(x), \(y))")
            }
        }
    }

    @Test func zeroRadiusWithABorderFramesTheImage() throws {
        let red = RGBA(255, 0, 0, 255)
        let result = try ImageTransformers.RoundCorners(radius: 0, borderWidth: 1, borderColor: red).transform(whiteSquare(6))
        #expect(!result.hasAlpha)
        for index in 0..<6 {
            #expect(result.pixels[index, 0] == red && result.pixels[0, index] == red)
            #expect(result.pixels[index, 5] == red && result.pixels[5, index] == red)
        }
        #expect(result.pixels[1, 1] == white && result.pixels[4, 4] == white)
    }

    @Test func radiusIsClampedToHalfTheShorterSide() throws {
        let image = Image(pixels: try PixelBuffer(width: 30, height: 10, filledWith: white))
        let huge = try ImageTransformers.RoundCorners(radius: 1000).transform(image)
        let half = try ImageTransformers.RoundCorners(radius: 5).transform(image)
        #expect(huge.pixels.bytes == half.pixels.bytes)
        #expect(huge.pixels[15, 5] == white)
    }

    @Test func nothingToDoLeavesThePixels() throws {
        let image = try whiteSquare()
        let result = try ImageTransformers.RoundCorners(radius: 0).transform(image)
        #expect(result.pixels.bytes == image.pixels.bytes)
        #expect(!result.hasAlpha)
        #expect(result.flags.contains(.transformed))
    }

    @Test func badRadiiAndWidthsAreErrors() throws {
        let image = try whiteSquare()
        for value in [Double.nan, .infinity, -1] {
            #expect(TransformTestSupport.error(ImageTransformers.RoundCorners(radius: value), on: image) == .invalidParameter)
            #expect(TransformTestSupport.error(ImageTransformers.RoundCorners(radius: 2, borderWidth: value), on: image)
                == .invalidParameter)
        }
    }
}
