import Foundation
@testable import WebImage

/// The colours `scripts/fixtures/gif.sh` paints its GIF fixtures with.
enum GIFColors {
    static let a = RGBA(200, 30, 30)
    static let b = RGBA(30, 200, 30)
    static let c = RGBA(30, 30, 200)
    static let d = RGBA(220, 220, 20)
    static let white = RGBA(255, 255, 255)
    static let black = RGBA(0, 0, 0)
    static let clear = RGBA(0, 0, 0, 0)
}

/// Helpers shared by the GIF test suites.
enum GIFTesting {
    /// Decodes the GIF fixture `name` with the GIF coder.
    static func decode(_ name: String, options: DecodeOptions = DecodeOptions()) throws -> Image {
        try GIFCoder().decode(Fixtures.data("gif/\(name)"), options: options)
    }

    /// Describes the first pixel of `pixels` that differs from `expected(x, y)`, or `nil` when all match.
    static func mismatch(_ pixels: PixelBuffer, _ expected: (Int, Int) -> RGBA) -> String? {
        for y in 0..<pixels.height {
            for x in 0..<pixels.width where pixels[x, y] != expected(x, y) {
                return "(\(x), \(y)) is \(pixels[x, y]), expected \(expected(x, y))"
            }
        }
        return nil
    }

    /// Whether (`x`, `y`) lies in the square of side `side` whose top-left corner is (`left`, `top`).
    static func inSquare(_ x: Int, _ y: Int, left: Int, top: Int, side: Int) -> Bool {
        x >= left && x < left + side && y >= top && y < top + side
    }

    /// An image from frames given as closures over (x, y).
    static func image(
        width: Int, height: Int, durations: [Double], loopCount: Int = 0, _ pixel: (Int, Int, Int) -> RGBA
    ) throws -> Image {
        let frames = try durations.enumerated().map { number, duration in
            var bytes: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let color = pixel(number, x, y)
                    bytes += [color.r, color.g, color.b, color.a]
                }
            }
            return ImageFrame(pixels: try PixelBuffer(width: width, height: height, rgba: bytes), duration: duration)
        }
        return Image(frames: frames, loopCount: loopCount)
    }
}
