import Foundation
import Testing
@testable import WebImage

/// The 8 orientation fixtures store one upright 48×32 pattern (red, green / blue, yellow quadrants) turned so
/// that applying their EXIF tag shows it upright.
@Suite struct JPEGOrientationTests {
    let coder = JPEGCoder()
    static let upright = [RGBA(220, 40, 40), RGBA(40, 200, 60), RGBA(30, 60, 220), RGBA(240, 230, 40)]

    @Test(arguments: Orientation.allCases)
    func everyOrientationShowsTheSameUprightPattern(orientation: Orientation) throws {
        let image = try coder.decode(Fixtures.data("jpeg/orientation-\(orientation.rawValue).jpg"), options: DecodeOptions())
        #expect(image.orientation == orientation)
        #expect(image.size == PixelSize(width: 48, height: 32))
        for (index, colour) in Self.upright.enumerated() {
            let x = index % 2 == 0 ? 12 : 36, y = index < 2 ? 8 : 24
            #expect(JPEGReference.isClose(image.pixels[x, y], colour, tolerance: 4), "quadrant \(index)")
        }
    }

    @Test(arguments: Orientation.allCases)
    func applyOrientationOffKeepsTheStoredPixels(orientation: Orientation) throws {
        let data = try Fixtures.data("jpeg/orientation-\(orientation.rawValue).jpg")
        let raw = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        let upright = try coder.decode(data, options: DecodeOptions())
        #expect(raw.orientation == orientation)
        #expect(raw.size == orientation.displayedSize(of: PixelSize(width: 48, height: 32)))
        #expect(raw.flags == [])
        // The stored pixels turned by the tag are exactly what the oriented decode returned.
        #expect(try raw.pixels.applying(orientation).bytes == upright.pixels.bytes)
    }

    @Test func storedPixelsOfAHalfTurnAreUpsideDown() throws {
        let raw = try coder.decode(Fixtures.data("jpeg/orientation-3.jpg"), options: DecodeOptions(applyOrientation: false))
        // Upright bottom-right (yellow) is stored top-left; upright top-left (red) bottom-right.
        #expect(JPEGReference.isClose(raw.pixels[12, 8], Self.upright[3], tolerance: 4))
        #expect(JPEGReference.isClose(raw.pixels[36, 24], Self.upright[0], tolerance: 4))
    }

    @Test func thumbnailBoxAppliesToTheDisplayedSize() throws {
        // orientation-6 is stored 32×48 and shown 48×32.
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24))
        let image = try coder.decode(Fixtures.data("jpeg/orientation-6.jpg"), options: options)
        #expect(image.size == PixelSize(width: 24, height: 16))
        #expect(image.flags.contains(.thumbnail))
        #expect(JPEGReference.isClose(image.pixels[6, 4], Self.upright[0], tolerance: 6))
        #expect(JPEGReference.isClose(image.pixels[18, 12], Self.upright[3], tolerance: 6))
    }
}
