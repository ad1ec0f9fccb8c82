import Foundation
import Testing
@testable import WebImage

@Suite struct JPEGEncodingTests {
    let coder = JPEGCoder()

    func photo() throws -> Image {
        try coder.decode(Fixtures.data("jpeg/sampling-444.jpg"), options: DecodeOptions())
    }

    /// A smooth 192×128 image (soft gradients and waves, no hard colour edges that 4:2:0 would smear).
    func smooth() throws -> Image {
        let width = 192, height = 128
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let wave = sin(Double(x) / 17) * cos(Double(y) / 11)
                rgba += [UInt8(x * 255 / (width - 1)), UInt8(127 + 100 * wave), UInt8(y * 255 / (height - 1)), 255]
            }
        }
        return Image(pixels: try PixelBuffer(width: width, height: height, rgba: rgba))
    }

    /// Measured here: 45.9 dB at 0.9, 50.0 dB at 1.0, 39.2 dB at 0.5.
    @Test(arguments: [(0.9, 43.0), (1.0, 47.0), (0.5, 37.0)])
    func roundTripPSNR(quality: Double, minimumDecibels: Double) throws {
        let original = try smooth()
        let data = try coder.encode(original, as: .jpeg, options: EncodeOptions(quality: quality))
        #expect(ImageFormat.detect(data) == .jpeg)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.size == original.size)
        #expect(JPEGReference.psnr(decoded.pixels, original.pixels) > minimumDecibels)
    }

    @Test func qualityMapsToTurboJPEGsScale() {
        #expect(JPEGEncoder.turboJPEGQuality(0) == 1)
        #expect(JPEGEncoder.turboJPEGQuality(0.9) == 90)
        #expect(JPEGEncoder.turboJPEGQuality(1) == 100)
        #expect(JPEGEncoder.turboJPEGQuality(EncodeOptions(quality: 7).clampedQuality) == 100)
        #expect(JPEGEncoder.turboJPEGQuality(EncodeOptions(quality: -1).clampedQuality) == 1)
        #expect(JPEGEncoder.turboJPEGQuality(EncodeOptions(quality: .nan).clampedQuality) == 90)
    }

    @Test func higherQualityWritesMoreBytes() throws {
        let image = try photo()
        let small = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.2))
        let large = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.95))
        #expect(small.count < large.count)
    }

    @Test func writes420Subsampling() throws {
        let data = try coder.encode(try photo(), as: .jpeg, options: EncodeOptions())
        let markers = try data.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(markers.frameMarker == 0xC0)
        // The luma component's sampling factors byte in SOF0: 2×2.
        let sof = try #require(JPEGTestBytes.baselineFrameHeaderOffset(in: data))
        #expect(data[data.startIndex + sof + 11] == 0x22)
    }

    @Test func alphaIsFlattenedOntoTheBackground() throws {
        // Left half opaque red, right half fully transparent, bottom half 50% green.
        let width = 32, height = 32
        var rgba: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let alpha: UInt8 = x < width / 2 ? 255 : 0
                rgba += y >= height / 2 ? [0, 255, 0, 128] : [255, 0, 0, alpha]
            }
        }
        let image = Image(pixels: try PixelBuffer(width: width, height: height, rgba: rgba))
        #expect(image.hasAlpha)
        let options = EncodeOptions(quality: 1, backgroundColor: RGBA(0, 0, 255))
        let decoded = try coder.decode(coder.encode(image, as: .jpeg, options: options), options: DecodeOptions())
        #expect(JPEGReference.isClose(decoded.pixels[4, 4], RGBA(255, 0, 0), tolerance: 8))
        #expect(JPEGReference.isClose(decoded.pixels[27, 4], RGBA(0, 0, 255), tolerance: 8))
        // 50% green over blue: (0, 128, 127).
        #expect(JPEGReference.isClose(decoded.pixels[16, 27], RGBA(0, 128, 127), tolerance: 8))
        #expect(!decoded.hasAlpha)
    }

    @Test func flatteningIsExact() throws {
        let pixels = try PixelBuffer(width: 2, height: 1, rgba: [200, 100, 50, 0, 200, 100, 50, 51])
        let flat = try JPEGEncoder.flattened(pixels, onto: RGBA(10, 20, 30, 0))
        #expect(flat[0, 0] == RGBA(10, 20, 30))
        // 200·51/255 + 10·204/255 = 40 + 8; 100·51/255 + 20·204/255 = 20 + 16; 50·51/255 + 30·204/255 = 10 + 24.
        #expect(flat[1, 0] == RGBA(48, 36, 34))
    }

    @Test func maxPixelSizeScalesDownFirst() throws {
        let image = Image(pixels: try PixelBuffer(width: 200, height: 100, filledWith: RGBA(90, 90, 90)))
        let data = try coder.encode(image, as: .jpeg, options: EncodeOptions(maxPixelSize: 50))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.size == PixelSize(width: 50, height: 25))
        let untouched = try coder.decode(coder.encode(image, as: .jpeg, options: EncodeOptions(maxPixelSize: 200)),
                                         options: DecodeOptions())
        #expect(untouched.size == PixelSize(width: 200, height: 100))
    }

    @Test func anAnimationIsWrittenAsItsFirstFrame() throws {
        let red = try PixelBuffer(width: 16, height: 16, filledWith: RGBA(255, 0, 0))
        let green = try PixelBuffer(width: 16, height: 16, filledWith: RGBA(0, 255, 0))
        let animation = Image(frames: [ImageFrame(pixels: red, duration: 0.1), ImageFrame(pixels: green, duration: 0.1)],
                              loopCount: 0, format: .gif)
        let decoded = try coder.decode(coder.encode(animation, as: .jpeg, options: EncodeOptions()), options: DecodeOptions())
        #expect(JPEGReference.isClose(decoded.pixels[8, 8], RGBA(255, 0, 0), tolerance: 4))
    }

    @Test func otherFormatsAndBadOptionsAreRefused() throws {
        let image = try photo()
        #expect(throws: ImageError(.unsupportedFormat, "the JPEG coder cannot write png")) {
            try coder.encode(image, as: .png, options: EncodeOptions())
        }
        #expect(throws: ImageError.self) {
            try coder.encode(image, as: .jpeg, options: EncodeOptions(maxPixelSize: 0))
        }
        #expect(coder.canEncode(to: .jpeg))
        #expect(!coder.canEncode(to: .webp))
    }
}
