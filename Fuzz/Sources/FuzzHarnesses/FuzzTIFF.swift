import Foundation
import FuzzSupport
import WebImage
import WebImageTIFF

/// The TIFF coder (libtiff's RGBA reader over memory) on any bytes. The first byte picks the decode options,
/// the second a page (0–3, so `TIFFSetDirectory` and the page-count walk are fuzzed too); then the header-only
/// properties reader.
func fuzzTIFF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var options = FuzzLimits.options(choice: input.takeByte())
    let page = Int(input.takeByte() & 3)
    if page > 0 { options.frameIndex = page }
    let data = input.payload
    let coder = TIFFCoder()
    _ = try? coder.decode(data, options: options)
    _ = try? coder.properties(of: data)
    return 0
}
