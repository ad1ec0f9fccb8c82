import Foundation
import Testing
@testable import WebImage

@Suite struct BlurTests {
    /// A true Gaussian blur in Double precision: separable kernel out to 5σ, edges repeating the border pixel.
    static func referenceGaussian(_ pixels: PixelBuffer, sigma: Double) throws -> PixelBuffer {
        let reach = Int((5 * sigma).rounded(.up))
        var kernel = (-reach...reach).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let width = pixels.width, height = pixels.height
        let source = pixels.bytes.map(Double.init)
        var rows = [Double](repeating: 0, count: source.count)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<4 {
                    var sum = 0.0
                    for offset in -reach...reach {
                        let column = min(max(x + offset, 0), width - 1)
                        sum += kernel[offset + reach] * source[(y * width + column) * 4 + channel]
                    }
                    rows[(y * width + x) * 4 + channel] = sum
                }
            }
        }
        var result = [UInt8](repeating: 0, count: source.count)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<4 {
                    var sum = 0.0
                    for offset in -reach...reach {
                        let row = min(max(y + offset, 0), height - 1)
                        sum += kernel[offset + reach] * rows[(row * width + x) * 4 + channel]
                    }
                    result[(y * width + x) * 4 + channel] = UInt8(min(max(sum.rounded(), 0), 255))
                }
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: result)
    }

    @Test(arguments: [(48, 36, 2.0), (7, 5, 1.0), (3, 9, 0.6), (33, 1, 4.0), (50, 40, 6.5)])
    func matchesATrueGaussian(width: Int, height: Int, sigma: Double) throws {
        let source = try TransformTestSupport.texture(width: width, height: height)
        let result = try ImageTransformers.Blur(radius: sigma).transform(Image(pixels: source))
        let reference = try Self.referenceGaussian(source, sigma: sigma)
        let quality = TransformTestSupport.psnr(result.pixels, reference)
        let unblurred = TransformTestSupport.psnr(source, reference)
        #expect(quality >= 35, "\(width)x\(height) σ=\(sigma): \(quality) dB (the source itself: \(unblurred) dB)")
    }

    @Test func matchesPillowsGaussianBlur() throws {
        let source = try TransformTestSupport.rawFixture("photo_120x90.rgba", width: 120, height: 90)
        let reference = try TransformTestSupport.rawFixture("photo_120x90_gaussian_3.rgba", width: 120, height: 90)
        let result = try ImageTransformers.Blur(radius: 3).transform(Image(pixels: source, hasAlpha: false))
        #expect(TransformTestSupport.psnr(result.pixels, reference) >= 45)
    }

    @Test func radiusZeroIsTheIdentity() throws {
        let image = Image(pixels: try TransformTestSupport.texture(width: 9, height: 4), format: .webp)
        let result = try ImageTransformers.Blur(radius: 0).transform(image)
        #expect(result.pixels.bytes == image.pixels.bytes)
        #expect(result.flags.contains(.transformed))
        #expect(result.format == .webp)
    }

    @Test func flatColourStaysFlat() throws {
        let image = Image(pixels: try PixelBuffer(width: 21, height: 13, filledWith: RGBA(3, 128, 254, 255)))
        for radius in [0.3, 1, 5, 40] {
            let result = try ImageTransformers.Blur(radius: radius).transform(image)
            #expect(Set(result.pixels.bytes.enumerated().map { $0.offset % 4 == 0 ? Int($0.element) : -1 }) == [3, -1])
            #expect(result.pixels[20, 12] == RGBA(3, 128, 254, 255) && result.pixels[10, 6] == RGBA(3, 128, 254, 255))
        }
    }

    @Test func transparentSurroundingsLeaveNoDarkFringe() throws {
        var bytes: [UInt8] = []
        for y in 0..<24 { for x in 0..<24 { bytes += (8..<16).contains(x) && (8..<16).contains(y) ? [40, 220, 90, 255] : [0, 0, 0, 0] } }
        let result = try ImageTransformers.Blur(radius: 2).transform(Image(pixels: try PixelBuffer(width: 24, height: 24, rgba: bytes)))
        #expect(result.hasAlpha)
        var seen = 0
        for y in 0..<24 {
            for x in 0..<24 where result.pixels[x, y].a >= 32 {
                let pixel = result.pixels[x, y]
                seen += 1
                // Premultiplied 8-bit intermediates cost up to 255 / (2 · alpha) per rounding at low alpha.
                #expect(abs(Int(pixel.r) - 40) <= 8 && abs(Int(pixel.g) - 220) <= 8 && abs(Int(pixel.b) - 90) <= 8,
                        "(\(x), \(y)) is \(pixel)")
            }
        }
        #expect(seen > 64, "the blur spreads the square")
    }

    @Test func badRadiiAreErrors() throws {
        let image = Image(pixels: try PixelBuffer(width: 4, height: 4, filledWith: RGBA(1, 2, 3)))
        for radius in [Double.nan, .infinity, -.infinity, -0.5] {
            #expect(TransformTestSupport.error(ImageTransformers.Blur(radius: radius), on: image) == .invalidParameter)
        }
    }

    @Test func hugeRadiusIsCapped() throws {
        let image = Image(pixels: try TransformTestSupport.texture(width: 16, height: 8))
        let capped = try ImageTransformers.Blur(radius: 1e12).transform(image)
        let maximum = try ImageTransformers.Blur(radius: ImageTransformers.Blur.maximumRadius).transform(image)
        #expect(capped.pixels.bytes == maximum.pixels.bytes)
    }

    @Test func extendedBoxHasTheGaussiansVariance() {
        for sigma in [0.5, 1, 2.7, 10, 100] {
            let box = ExtendedBox(sigma: sigma)
            // Variance of one box: (2r+1)·r(r+1)/3 + 2e(r+1)² over the total weight (2r+1+2e).
            let r = Double(box.radius), e = Double(box.edge)
            let variance = ((2 * r + 1) * r * (r + 1) / 3 + 2 * e * (r + 1) * (r + 1)) / (2 * r + 1 + 2 * e)
            #expect(abs(3 * variance - sigma * sigma) < 1e-3 * max(1, sigma * sigma), "σ=\(sigma)")
        }
    }
}
