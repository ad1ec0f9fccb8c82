import Testing
@testable import WebImage

@Suite struct ResizeTests {
    func photo() throws -> Image {
        Image(pixels: try TransformTestSupport.rawFixture("photo_120x90.rgba", width: 120, height: 90), format: .jpeg)
    }

    @Test func downscalingMatchesPillowLanczos() throws {
        let result = try ImageTransformers.Resize(to: PixelSize(width: 48, height: 36)).transform(photo())
        let reference = try TransformTestSupport.rawFixture("photo_120x90_lanczos_48x36.rgba", width: 48, height: 36)
        #expect(result.size == PixelSize(width: 48, height: 36))
        #expect(TransformTestSupport.psnr(result.pixels, reference) >= 35)
        #expect(result.format == .jpeg)
        #expect(result.flags.contains(.transformed))
        #expect(!result.hasAlpha)
    }

    @Test func aspectFillCropsTheCentreLikePillowsBox() throws {
        let result = try ImageTransformers.Resize(to: PixelSize(width: 40, height: 40), fit: .aspectFill)
            .transform(photo())
        let reference = try TransformTestSupport.rawFixture("photo_120x90_lanczos_box_40x40.rgba", width: 40, height: 40)
        #expect(result.size == PixelSize(width: 40, height: 40))
        #expect(TransformTestSupport.psnr(result.pixels, reference) >= 35)
    }

    @Test func alphaIsResampledPremultipliedLikePillow() throws {
        let source = try TransformTestSupport.rawFixture("alpha_120x90.rgba", width: 120, height: 90)
        let result = try ImageTransformers.Resize(to: PixelSize(width: 48, height: 36)).transform(Image(pixels: source))
        let reference = try TransformTestSupport.rawFixture("alpha_120x90_lanczos_48x36.rgba", width: 48, height: 36)
        #expect(result.hasAlpha)
        // Fully transparent pixels may store any colour: compare what is seen, the premultiplied values.
        #expect(TransformTestSupport.psnr(try TransformTestSupport.premultiplied(result.pixels),
                                          try TransformTestSupport.premultiplied(reference)) >= 35)
    }

    @Test func transparentNeighboursLeaveNoDarkFringe() throws {
        // A white square on transparent black: every visible pixel of any resize must stay white.
        var bytes: [UInt8] = []
        for y in 0..<30 { for x in 0..<30 { bytes += (8..<22).contains(x) && (8..<22).contains(y) ? [255, 255, 255, 255] : [0, 0, 0, 0] } }
        let image = Image(pixels: try PixelBuffer(width: 30, height: 30, rgba: bytes))
        for size in [PixelSize(width: 13, height: 11), PixelSize(width: 71, height: 64)] {
            let result = try ImageTransformers.Resize(to: size).transform(image)
            for y in 0..<size.height {
                for x in 0..<size.width where result.pixels[x, y].a > 0 {
                    let pixel = result.pixels[x, y]
                    #expect(pixel.r == 255 && pixel.g == 255 && pixel.b == 255, "\(size): (\(x), \(y)) is \(pixel)")
                }
            }
        }
    }

    @Test func aspectFitKeepsTheRatioWithoutPadding() throws {
        let image = try photo()
        let wide = try ImageTransformers.Resize(to: PixelSize(width: 60, height: 60), fit: .aspectFit).transform(image)
        #expect(wide.size == PixelSize(width: 60, height: 45))
        let tall = try ImageTransformers.Resize(to: PixelSize(width: 100, height: 30), fit: .aspectFit).transform(image)
        #expect(tall.size == PixelSize(width: 40, height: 30))
        let sliver = try ImageTransformers.Resize(to: PixelSize(width: 1, height: 500), fit: .aspectFit).transform(image)
        #expect(sliver.size == PixelSize(width: 1, height: 1))
        let boundless = try ImageTransformers.Resize(to: PixelSize(width: Int.max, height: 6), fit: .aspectFit)
            .transform(image)
        #expect(boundless.size == PixelSize(width: 8, height: 6))
        let up = try ImageTransformers.Resize(to: PixelSize(width: 240, height: 240), fit: .aspectFit).transform(image)
        #expect(up.size == PixelSize(width: 240, height: 180))
    }

    @Test func fillStretches() throws {
        let result = try ImageTransformers.Resize(to: PixelSize(width: 30, height: 70), fit: .fill).transform(photo())
        #expect(result.size == PixelSize(width: 30, height: 70))
    }

    @Test func flatColourStaysExactlyFlat() throws {
        let image = Image(pixels: try PixelBuffer(width: 37, height: 23, filledWith: RGBA(12, 200, 99, 255)))
        for size in [PixelSize(width: 5, height: 3), PixelSize(width: 100, height: 61), PixelSize(width: 37, height: 7)] {
            for filter in ResamplingFilter.allCases {
                let result = try ImageTransformers.Resize(to: size, filter: filter).transform(image)
                #expect(Set(stride(from: 0, to: result.pixels.byteCount, by: 4).map { index in
                    result.pixels[index / 4 % size.width, index / 4 / size.width]
                }) == [RGBA(12, 200, 99, 255)], "\(filter) to \(size)")
            }
        }
    }

    @Test func upscalingIsSmoothNotNearest() throws {
        // A linear ramp enlarged 4×: cubic convolution reproduces the ramp between the end pixels, where the
        // repeated edges hold it flat. Nearest neighbour would give four plateaus of four equal values.
        let ramp = Image(pixels: try PixelBuffer(width: 4, height: 1, rgba: [0, 60, 120, 180].flatMap { [$0, 0, 0, 255] }))
        let result = try ImageTransformers.Resize(to: PixelSize(width: 16, height: 1)).transform(ramp)
        let reds = (0..<16).map { Int(result.pixels[$0, 0].r) }
        #expect(reds == reds.sorted(), "monotonic: \(reds)")
        // Cubic convolution overshoots a little at the kink where the repeated edge begins.
        #expect(reds.first == 0 && (180...186).contains(reds.last ?? 0), "\(reds)")
        // Output pixel 8's centre is source position 2.125 − 0.5 = 1.625 between pixels 1 and 2: 60 + 0.625·60.
        #expect(reds[8] == 98)
        #expect(Set(reds).count >= 12, "\(reds)")
    }

    @Test func hugeReductionsAverageCorrectly() throws {
        // 3 000 columns of alternating 0 and 200 down to 2 pixels: the wide-window path must give 100.
        var bytes: [UInt8] = []
        for x in 0..<3000 { bytes += x % 2 == 0 ? [0, 0, 0, 255] : [200, 200, 200, 255] }
        let image = Image(pixels: try PixelBuffer(width: 3000, height: 1, rgba: bytes))
        for filter in [ResamplingFilter.area, .lanczos3] {
            let result = try ImageTransformers.Resize(to: PixelSize(width: 2, height: 1), filter: filter).transform(image)
            #expect(abs(Int(result.pixels[0, 0].r) - 100) <= 1, "\(filter): \(result.pixels[0, 0])")
            #expect(abs(Int(result.pixels[1, 0].r) - 100) <= 1, "\(filter): \(result.pixels[1, 0])")
        }
    }

    @Test func everyFrameOfAnAnimationIsResized() throws {
        let red = try PixelBuffer(width: 10, height: 10, filledWith: RGBA(255, 0, 0))
        let blue = try PixelBuffer(width: 10, height: 10, filledWith: RGBA(0, 0, 255))
        let animation = Image(frames: [ImageFrame(pixels: red, duration: 0.1), ImageFrame(pixels: blue, duration: 0.2),
                                       ImageFrame(pixels: red, duration: 0.3)], loopCount: 3, format: .gif)
        let result = try ImageTransformers.Resize(to: PixelSize(width: 4, height: 5)).transform(animation)
        #expect(result.frames.count == 3)
        #expect(result.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(result.loopCount == 3)
        #expect(result.frames.map { $0.pixels[2, 2] } == [RGBA(255, 0, 0), RGBA(0, 0, 255), RGBA(255, 0, 0)])
        #expect(result.frames.allSatisfy { $0.pixels.size == PixelSize(width: 4, height: 5) })
        // Frames that shared a bitmap still share the resized one.
        #expect(ObjectIdentifier(result.frames[0].pixels.storage) == ObjectIdentifier(result.frames[2].pixels.storage))
    }

    @Test func badSizesAreErrors() throws {
        let image = try photo()
        for size in [PixelSize(width: 0, height: 10), PixelSize(width: 10, height: -3), PixelSize(width: 0, height: 0)] {
            for fit in ImageTransformers.Resize.Fit.allCases {
                #expect(TransformTestSupport.error(ImageTransformers.Resize(to: size, fit: fit), on: image)
                    == .invalidParameter, "\(size) \(fit)")
            }
        }
        for size in [PixelSize(width: 100_000, height: 100_000), PixelSize(width: Int.max, height: Int.max)] {
            #expect(TransformTestSupport.error(ImageTransformers.Resize(to: size), on: image) == .imageTooLarge)
        }
        #expect(throws: ImageError.self) { try image.pixels.resized(to: PixelSize(width: 50_000, height: 50_000)) }
        // A side longer than the filters accept, though within the pixel limit.
        let line = Image(pixels: try PixelBuffer(width: PixelBuffer.maximumFilteredSide + 1, height: 1,
                                                 filledWith: RGBA(1, 2, 3)))
        #expect(TransformTestSupport.error(ImageTransformers.Resize(to: PixelSize(width: 100, height: 1)), on: line)
            == .imageTooLarge)
        #expect(TransformTestSupport.error(ImageTransformers.Resize(to: PixelSize(width: 1, height: 300_000)), on: image)
            == .imageTooLarge)
        #expect(TransformTestSupport.error(ImageTransformers.Blur(radius: 2), on: line) == .imageTooLarge)
    }

    @Test func sameSizeIsTheSamePixels() throws {
        let image = try photo()
        let result = try ImageTransformers.Resize(to: image.size, fit: .aspectFill).transform(image)
        #expect(result.pixels.bytes == image.pixels.bytes)
    }
}
