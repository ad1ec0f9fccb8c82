import Foundation
import Testing
@testable import WebImage

/// large-quadrants.jpg is 1600×1200: red, green / blue, yellow quadrants.
@Suite struct JPEGThumbnailTests {
    let coder = JPEGCoder()
    static let quadrants = [RGBA(220, 40, 40), RGBA(40, 200, 60), RGBA(30, 60, 220), RGBA(240, 230, 40)]

    struct Case: Sendable, CustomTestStringConvertible {
        var box: PixelSize
        var preserveAspectRatio: Bool
        var expected: PixelSize
        var testDescription: String { "\(box) keep aspect \(preserveAspectRatio) → \(expected)" }
    }

    @Test(arguments: [
        Case(box: PixelSize(width: 256, height: 256), preserveAspectRatio: true, expected: PixelSize(width: 256, height: 192)),
        Case(box: PixelSize(width: 100, height: 100), preserveAspectRatio: true, expected: PixelSize(width: 100, height: 75)),
        Case(box: PixelSize(width: 400, height: 100), preserveAspectRatio: true, expected: PixelSize(width: 133, height: 100)),
        Case(box: PixelSize(width: 1000, height: 1000), preserveAspectRatio: true, expected: PixelSize(width: 1000, height: 750)),
        Case(box: PixelSize(width: 300, height: 100), preserveAspectRatio: false, expected: PixelSize(width: 300, height: 100)),
        Case(box: PixelSize(width: 64, height: 900), preserveAspectRatio: false, expected: PixelSize(width: 64, height: 900)),
    ])
    func thumbnailSizes(_ testCase: Case) throws {
        let options = DecodeOptions(thumbnailPixelSize: testCase.box, preserveAspectRatio: testCase.preserveAspectRatio)
        let image = try coder.decode(Fixtures.data("jpeg/large-quadrants.jpg"), options: options)
        #expect(image.size == testCase.expected)
        #expect(image.flags.contains(.thumbnail))
        let size = image.size
        for (index, colour) in Self.quadrants.enumerated() {
            let x = index % 2 == 0 ? size.width / 4 : size.width * 3 / 4
            let y = index < 2 ? size.height / 4 : size.height * 3 / 4
            #expect(JPEGReference.isClose(image.pixels[x, y], colour, tolerance: 6), "quadrant \(index)")
        }
    }

    @Test func aBoxLargerThanTheImageKeepsItWhole() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 4000, height: 4000))
        let image = try coder.decode(Fixtures.data("jpeg/large-quadrants.jpg"), options: options)
        #expect(image.size == PixelSize(width: 1600, height: 1200))
        #expect(!image.flags.contains(.thumbnail))
    }

    @Test(arguments: [100_000, 1_000_000, 4 * 1600 * 1200 - 1])
    func scaleDownLimitBytesIsRespected(limit: Int) throws {
        let options = DecodeOptions(scaleDownLimitBytes: limit)
        let image = try coder.decode(Fixtures.data("jpeg/large-quadrants.jpg"), options: options)
        #expect(image.pixels.byteCount <= limit)
        #expect(image.flags.contains(.thumbnail))
        // Aspect ratio kept to within one pixel of rounding.
        #expect(abs(image.size.width * 3 - image.size.height * 4) <= 4)
    }

    @Test func aLimitAboveTheImageSizeChangesNothing() throws {
        let options = DecodeOptions(scaleDownLimitBytes: 4 * 1600 * 1200)
        let image = try coder.decode(Fixtures.data("jpeg/large-quadrants.jpg"), options: options)
        #expect(image.size == PixelSize(width: 1600, height: 1200))
        #expect(image.flags == [])
    }

    @Test func scaleFactorChoice() {
        let photo = PixelSize(width: 4000, height: 3000)
        #expect(JPEGScaling.factor(for: photo, target: nil) == .full)
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 256, height: 192)).description == "1/8")
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 500, height: 375)).description == "1/8")
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 501, height: 375)).description == "1/4")
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 1500, height: 100)).description == "3/8")
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 100, height: 1500)).description == "1/2")
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 2001, height: 1501)).description == "5/8")
        // Between 5/8 and 1/1 only slow factors exist (7/8, 3/4): decode whole and area-average.
        #expect(JPEGScaling.factor(for: photo, target: PixelSize(width: 2501, height: 100)) == .full)
        // TJSCALED rounds up: 1/8 of 801 is 101.
        #expect(JPEGScaling.factor(for: PixelSize(width: 801, height: 601), target: PixelSize(width: 101, height: 76))
            .description == "1/8")
    }

    /// A 12 MP JPEG asked for 256 px is decoded by TurboJPEG at 1/8 (500×375), never at full size.
    @Test func twelveMegapixelsNeverBecomeAFullSizeBitmap() throws {
        let colour = RGBA(30, 140, 200)
        let source = try PixelBuffer(width: 4000, height: 3000, filledWith: colour)
        let data = try coder.encode(Image(pixels: source, hasAlpha: false), as: .jpeg, options: EncodeOptions())

        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let image = try coder.decode(data, options: options)
        #expect(image.size == PixelSize(width: 256, height: 192))
        #expect(image.flags.contains(.thumbnail))
        #expect(JPEGReference.isClose(image.pixels[128, 96], colour, tolerance: 3))

        // The buffer TurboJPEG writes into, before the area downsample.
        let intermediate = try data.withUnsafeBytes { bytes in
            let markers = try JPEGMarkerScanner.scan(bytes)
            let target = options.storedTargetSize(for: markers.frameSize, orientation: .up)
            let factor = JPEGScaling.factor(for: markers.frameSize, target: target)
            return try JPEGDecoder.decodePixels(bytes, markers: markers, factor: factor,
                                                cmyk: CMYKColorConversion(profile: nil, handling: .sRGB))
        }
        #expect(intermediate.size == PixelSize(width: 500, height: 375))
    }
}
