import Foundation
import Testing
@testable import WebImage

/// Images, fixtures and measures shared by the transformer tests.
enum TransformTestSupport {
    /// A raw RGBA fixture from `Fixtures/transform/` (made by scripts/fixtures/transform.sh).
    static func rawFixture(_ name: String, width: Int, height: Int) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, rgba: [UInt8](Fixtures.data("transform/\(name)")))
    }

    /// A bitmap whose every pixel is different: (x·10+1, y·10+2, x+y·w, 200+x), so moved pixels can be traced.
    static func numbered(width: Int, height: Int) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8(x * 10 + 1), UInt8(y * 10 + 2), UInt8(x + y * width), UInt8(200 + x)]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    /// The colour the numbered bitmap has at (`x`, `y`).
    static func numberedColor(x: Int, y: Int, width: Int) -> RGBA {
        RGBA(UInt8(x * 10 + 1), UInt8(y * 10 + 2), UInt8(x + y * width), UInt8(200 + x))
    }

    /// A deterministic textured bitmap: waves in each channel plus a hard-edged square.
    static func texture(width: Int, height: Int) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let inSquare = x >= width / 4 && x < width / 2 && y >= height / 3 && y < height * 2 / 3
                let red = inSquare ? 250.0 : 128 + 100 * sin(Double(x) / 3.1)
                let green = 128 + 90 * cos(Double(y) / 2.3 + Double(x) / 7)
                let blue = Double((x * 37 + y * 91) % 256)
                bytes += [UInt8(red), UInt8(green), UInt8(blue), 255]
            }
        }
        return try PixelBuffer(width: width, height: height, rgba: bytes)
    }

    /// Peak signal-to-noise ratio in dB over the given channels (all four by default); 99 when identical.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer, channels: [Int] = [0, 1, 2, 3]) -> Double {
        #expect(a.size == b.size)
        let x = a.bytes, y = b.bytes
        var squares = 0.0, count = 0
        for pixel in stride(from: 0, to: min(x.count, y.count), by: 4) {
            for channel in channels {
                let difference = Double(x[pixel + channel]) - Double(y[pixel + channel])
                squares += difference * difference
                count += 1
            }
        }
        let meanSquare = squares / Double(max(count, 1))
        return meanSquare == 0 ? 99 : 10 * log10(255 * 255 / meanSquare)
    }

    /// The bitmap with each colour channel multiplied by alpha, as Doubles in 0...255 (for comparing images
    /// whose fully transparent pixels may store any colour).
    static func premultiplied(_ pixels: PixelBuffer) throws -> PixelBuffer {
        var bytes = pixels.bytes
        for pixel in stride(from: 0, to: bytes.count, by: 4) {
            let alpha = Double(bytes[pixel + 3]) / 255
            for channel in 0..<3 { bytes[pixel + channel] = UInt8((Double(bytes[pixel + channel]) * alpha).rounded()) }
        }
        return try PixelBuffer(width: pixels.width, height: pixels.height, rgba: bytes)
    }

    /// The error a transformer throws, or `nil`.
    static func error(_ transformer: some ImageTransformer, on image: Image) -> ImageError.Code? {
        do {
            _ = try transformer.transform(image)
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            return nil
        }
    }
}
