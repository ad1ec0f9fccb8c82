import CoderTestSupport
import Foundation
import Testing
import WebImage

/// The fixtures folder and comparisons against the `rsvg-convert` references (raw RGBA files).
enum SVGFixtures {
    static let folder = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    static func reference(_ name: String) throws -> [UInt8] {
        Array(try data(name))
    }

    /// Every fixture that renders, with its expected intrinsic size.
    static let renderable: [(name: String, size: PixelSize)] = [
        ("shapes", PixelSize(width: 64, height: 48)), ("gradient", PixelSize(width: 80, height: 60)),
        ("viewbox", PixelSize(width: 60, height: 45)), ("units", PixelSize(width: 96, height: 48)),
        ("one-side", PixelSize(width: 100, height: 50)), ("fractional", PixelSize(width: 11, height: 8)),
        ("external", PixelSize(width: 40, height: 30)), ("no-size", PixelSize(width: 512, height: 512)),
    ]

    /// The largest difference of any channel of any pixel.
    static func maxDifference(_ pixels: PixelBuffer, _ reference: [UInt8]) -> Int {
        let bytes = pixels.bytes
        guard bytes.count == reference.count else { return .max }
        return zip(bytes, reference).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// An SVG document of the given root attributes holding one green rectangle.
    static func document(_ attributes: String) -> Data {
        let rect = #"<rect width="10" height="10" fill="lime"/>"#
        return Data(#"<svg xmlns="http://www.w3.org/2000/svg" \#(attributes)>\#(rect)</svg>"#.utf8)
    }
}
