import Testing
@testable import WebImage

@Suite struct OrientationTests {
    /// A 3×2 bitmap whose pixel (x, y) has red = x and green = y, so every output pixel names its source.
    private func pattern() throws -> PixelBuffer {
        try PixelBuffer(width: 3, height: 2, rgba: (0..<2).flatMap { y in (0..<3).flatMap { x in [UInt8(x), UInt8(y), 0, 255] } })
    }

    /// The source coordinates each displayed pixel must show, straight from the EXIF definitions of where the
    /// stored 0th row and 0th column end up.
    private func expectedSource(_ orientation: Orientation, x: Int, y: Int, width w: Int, height h: Int) -> (Int, Int) {
        switch orientation {
        case .up: (x, y)
        case .upMirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .downMirrored: (x, h - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, h - 1 - x)
        case .rightMirrored: (w - 1 - y, h - 1 - x)
        case .left: (w - 1 - y, x)
        }
    }

    @Test(arguments: Orientation.allCases)
    func appliesEachOrientation(_ orientation: Orientation) throws {
        let source = try pattern()
        let result = try source.applying(orientation)
        #expect(result.size == orientation.displayedSize(of: source.size))
        for y in 0..<result.height {
            for x in 0..<result.width {
                let (sx, sy) = expectedSource(orientation, x: x, y: y, width: 3, height: 2)
                #expect(result[x, y] == RGBA(UInt8(sx), UInt8(sy), 0, 255), "\(orientation) at (\(x), \(y))")
            }
        }
    }

    @Test func rightTurnsTheTopRowToTheRightColumn() throws {
        // Orientation 6: the stored top row is shown as the right-hand column, read top to bottom.
        let turned = try pattern().applying(.right)
        #expect(turned.size == PixelSize(width: 2, height: 3))
        #expect(turned[1, 0] == RGBA(0, 0, 0, 255))
        #expect(turned[1, 2] == RGBA(2, 0, 0, 255))
        #expect(turned[0, 0] == RGBA(0, 1, 0, 255))
    }

    @Test func upReturnsTheSameStorage() throws {
        let source = try pattern()
        #expect(try source.applying(.up).storage === source.storage)
    }
}
