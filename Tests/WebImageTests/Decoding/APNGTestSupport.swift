import Foundation
@testable import WebImage

/// The colours `scripts/fixtures/apng.sh` paints its APNG fixtures with.
enum APNGColors {
    static let red = RGBA(200, 30, 30)
    static let green = RGBA(30, 200, 30)
    static let blue = RGBA(30, 30, 200)
    static let yellow = RGBA(220, 220, 20)
    static let magenta = RGBA(255, 0, 255)
    static let clear = RGBA(0, 0, 0, 0)
}

/// Helpers shared by the APNG test suites.
enum APNGTesting {
    /// Decodes the APNG fixture `name` (without extension) with the PNG coder.
    static func decode(_ name: String, options: DecodeOptions = DecodeOptions()) throws -> Image {
        try PNGCoder().decode(Fixtures.data("apng/\(name).png"), options: options)
    }

    /// The reference frames the fixture script composited for `name`, each `size` large.
    static func expectedFrames(_ name: String, size: PixelSize) throws -> [[UInt8]] {
        let bytes = Array(try Fixtures.data("apng/\(name).rgba"))
        let frameBytes = size.width * size.height * 4
        guard frameBytes > 0, bytes.count % frameBytes == 0 else { return [] }
        return stride(from: 0, to: bytes.count, by: frameBytes).map { Array(bytes[$0..<($0 + frameBytes)]) }
    }

    /// The error code `body` throws, or `nil` when it returns.
    static func code(of body: () throws -> Image) -> ImageError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as ImageError {
            return error.code
        } catch {
            return nil
        }
    }
}
