import Testing
@testable import WebImage

/// Flip, quarter-turn rotation and crop move pixels without resampling: every pixel is checked.
@Suite struct GeometryTransformTests {
    let width = 5, height = 3

    func source() throws -> Image {
        Image(pixels: try TransformTestSupport.numbered(width: width, height: height), format: .png, scale: 2)
    }

    func expectPixels(_ pixels: PixelBuffer, _ expected: (Int, Int) -> RGBA) {
        for y in 0..<pixels.height {
            for x in 0..<pixels.width where pixels[x, y] != expected(x, y) {
                Issue.record("pixel (\(x), \(y)) is \(pixels[x, y]), expected \(expected(x, y))")
            }
        }
    }

    func color(_ x: Int, _ y: Int) -> RGBA { TransformTestSupport.numberedColor(x: x, y: y, width: width) }

    @Test func flipsHorizontally() throws {
        let result = try ImageTransformers.Flip(horizontal: true, vertical: false).transform(source())
        #expect(result.size == PixelSize(width: width, height: height))
        expectPixels(result.pixels) { x, y in color(width - 1 - x, y) }
        #expect(result.flags.contains(.transformed))
    }

    @Test func flipsVertically() throws {
        let result = try ImageTransformers.Flip(horizontal: false, vertical: true).transform(source())
        expectPixels(result.pixels) { x, y in color(x, height - 1 - y) }
    }

    @Test func flipsBothWays() throws {
        let result = try ImageTransformers.Flip(horizontal: true, vertical: true).transform(source())
        expectPixels(result.pixels) { x, y in color(width - 1 - x, height - 1 - y) }
    }

    @Test func flippingNeitherWayKeepsThePixels() throws {
        let image = try source()
        let result = try ImageTransformers.Flip(horizontal: false, vertical: false).transform(image)
        #expect(result.pixels.bytes == image.pixels.bytes)
        #expect(result.flags.contains(.transformed))
    }

    @Test func rotatesQuarterTurnsCounterClockwiseExactly() throws {
        let quarter = try ImageTransformers.Rotate(degrees: 90, fitSize: true).transform(source())
        #expect(quarter.size == PixelSize(width: height, height: width))
        // Counter-clockwise: the top-right corner comes to the top-left.
        expectPixels(quarter.pixels) { x, y in color(width - 1 - y, x) }

        let half = try ImageTransformers.Rotate(degrees: 180, fitSize: true).transform(source())
        #expect(half.size == PixelSize(width: width, height: height))
        expectPixels(half.pixels) { x, y in color(width - 1 - x, height - 1 - y) }

        let threeQuarters = try ImageTransformers.Rotate(degrees: 270, fitSize: true).transform(source())
        #expect(threeQuarters.size == PixelSize(width: height, height: width))
        expectPixels(threeQuarters.pixels) { x, y in color(y, height - 1 - x) }
        #expect(threeQuarters.hasAlpha == (try source()).hasAlpha)
    }

    @Test func quarterTurnAnglesAreNormalised() throws {
        let reference = try ImageTransformers.Rotate(degrees: 270, fitSize: true).transform(source()).pixels.bytes
        for degrees in [-90.0, 630, -450] {
            let result = try ImageTransformers.Rotate(degrees: degrees, fitSize: true).transform(source())
            #expect(result.pixels.bytes == reference, "rotating by \(degrees)")
        }
        let full = try ImageTransformers.Rotate(degrees: 360, fitSize: false).transform(source())
        #expect(full.pixels.bytes == (try source()).pixels.bytes)
    }

    @Test func quarterTurnWithoutFitKeepsTheCanvasAndCentres() throws {
        let result = try ImageTransformers.Rotate(degrees: 90, fitSize: false).transform(source())
        #expect(result.size == PixelSize(width: width, height: height))
        #expect(result.hasAlpha)
        // The turned image is 3 wide and 5 tall: columns 1...3 of the canvas, rows 1...3 of the turned image.
        expectPixels(result.pixels) { x, y in
            guard (1...3).contains(x) else { return RGBA(0, 0, 0, 0) }
            return color(width - 1 - (y + 1), x - 1)
        }
    }

    @Test func rotatesByOtherAnglesWithTransparentCorners() throws {
        let image = Image(pixels: try PixelBuffer(width: 40, height: 20, filledWith: RGBA(200, 100, 50)))
        let fitted = try ImageTransformers.Rotate(degrees: 30, fitSize: true).transform(image)
        // 40·cos30 + 20·sin30 = 44.64, 40·sin30 + 20·cos30 = 37.32.
        #expect(fitted.size == PixelSize(width: 45, height: 38))
        #expect(fitted.hasAlpha)
        for (x, y) in [(0, 0), (44, 0), (0, 37), (44, 37)] {
            #expect(fitted.pixels[x, y] == RGBA(0, 0, 0, 0), "corner (\(x), \(y))")
        }
        // The centre is covered, with the colour unchanged; edge pixels keep the colour (no dark fringe).
        #expect(fitted.pixels[22, 19] == RGBA(200, 100, 50, 255))
        var partial = 0
        for y in 0..<fitted.size.height {
            for x in 0..<fitted.size.width {
                let pixel = fitted.pixels[x, y]
                guard pixel.a > 0 else { continue }
                if pixel.a < 255 { partial += 1 }
                if pixel.a >= 32 {
                    #expect(abs(Int(pixel.r) - 200) <= 8 && abs(Int(pixel.g) - 100) <= 8 && abs(Int(pixel.b) - 50) <= 8,
                            "pixel (\(x), \(y)) is \(pixel)")
                }
            }
        }
        #expect(partial > 0, "edges are anti-aliased")

        let kept = try ImageTransformers.Rotate(degrees: 30, fitSize: false).transform(image)
        #expect(kept.size == image.size)
        #expect(kept.pixels[0, 0].a == 0)
        #expect(kept.pixels[20, 10] == RGBA(200, 100, 50, 255))
    }

    @Test func rotatingTranslucentPixelsKeepsTheirColourAndAlpha() throws {
        let translucent = RGBA(200, 100, 50, 128)
        let image = Image(pixels: try PixelBuffer(width: 30, height: 30, filledWith: translucent))
        let result = try ImageTransformers.Rotate(degrees: 45, fitSize: true).transform(image)
        #expect(result.size == PixelSize(width: 43, height: 43))
        // 8-bit premultiplied values hold 200 at alpha 128 as 100, which reads back as 199.
        for (x, y) in [(21, 21), (21, 3), (5, 21)] {
            let pixel = result.pixels[x, y]
            #expect(pixel.a == 128 && abs(Int(pixel.r) - 200) <= 1 && pixel.g == 100 && pixel.b == 50, "\(pixel)")
        }
        #expect(result.pixels[0, 0] == RGBA(0, 0, 0, 0))
    }

    @Test func rotationByASmallAngleMatchesSamplingByHand() throws {
        // Rotating a horizontal ramp by 1°: the middle of the output samples the middle of the source.
        var bytes: [UInt8] = []
        for _ in 0..<21 { for x in 0..<21 { bytes += [UInt8(x * 10), 0, 0, 255] } }
        let ramp = Image(pixels: try PixelBuffer(width: 21, height: 21, rgba: bytes))
        let result = try ImageTransformers.Rotate(degrees: 1, fitSize: false).transform(ramp)
        #expect(result.pixels[10, 10] == RGBA(100, 0, 0, 255))
        // One column right of the centre, the sample is cos(1°) to the right and sin(1°) down: about 109.98.
        #expect(result.pixels[11, 10].r == 110)
    }

    @Test func cropsExactly() throws {
        let result = try ImageTransformers.Crop(PixelRect(x: 1, y: 1, width: 3, height: 2)).transform(source())
        #expect(result.size == PixelSize(width: 3, height: 2))
        expectPixels(result.pixels) { x, y in color(x + 1, y + 1) }
        #expect(result.format == .png)
        #expect(result.scale == 2)
    }

    @Test func cropIsClampedToTheImage() throws {
        let result = try ImageTransformers.Crop(PixelRect(x: -2, y: 1, width: 4, height: 10)).transform(source())
        #expect(result.size == PixelSize(width: 2, height: 2))
        expectPixels(result.pixels) { x, y in color(x, y + 1) }
        let whole = try ImageTransformers.Crop(PixelRect(x: -10, y: -10, width: 100, height: 100)).transform(source())
        #expect(whole.pixels.bytes == (try source()).pixels.bytes)
    }

    @Test func cropOutsideOrEmptyIsAnError() throws {
        let image = try source()
        for rect in [PixelRect(x: 5, y: 0, width: 2, height: 2), PixelRect(x: 0, y: -4, width: 2, height: 4),
                     PixelRect(x: 0, y: 0, width: 0, height: 2), PixelRect(x: 1, y: 1, width: 2, height: -1),
                     PixelRect(x: Int.max, y: Int.max, width: Int.max, height: Int.max)] {
            #expect(TransformTestSupport.error(ImageTransformers.Crop(rect), on: image) == .invalidParameter, "\(rect)")
        }
    }

    @Test func nonFiniteAnglesAreErrors() throws {
        let image = try source()
        for degrees in [Double.nan, .infinity, -.infinity] {
            #expect(TransformTestSupport.error(ImageTransformers.Rotate(degrees: degrees, fitSize: true), on: image)
                == .invalidParameter)
        }
    }

    @Test func rotationOverThePixelLimitIsAnError() throws {
        // A 14 000 × 1 line turned 45° needs a 9 900² canvas, over the 89 478 485-pixel limit.
        let line = Image(pixels: try PixelBuffer(width: 14_000, height: 1, filledWith: RGBA(1, 2, 3)))
        #expect(TransformTestSupport.error(ImageTransformers.Rotate(degrees: 45, fitSize: true), on: line)
            == .imageTooLarge)
    }
}
