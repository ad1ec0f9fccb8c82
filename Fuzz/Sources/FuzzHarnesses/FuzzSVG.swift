import Foundation
import FuzzSupport
import WebImage
import WebImageSVG

/// The SVG coder (librsvg's XML parser and renderer through cairo, our size rules and pixel conversion) on any
/// bytes: decode with fuzzer-chosen options, and the properties reader, which must agree with the decode's size.
/// The first byte picks the decode options.
func fuzzSVG(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    let data = input.payload
    let properties = try? SVGCoder().properties(of: data)
    if let image = try? SVGCoder().decode(data, options: options) {
        precondition(image.hasAlpha, "an SVG decode must report alpha")
        precondition(properties != nil, "an SVG decoded but its properties could not be read")
        if options.thumbnailPixelSize == nil, options.scaleDownLimitBytes == nil, let properties {
            precondition(properties.size == image.size, "SVG properties \(properties.size) ≠ decode \(image.size)")
        }
    }
    return 0
}
