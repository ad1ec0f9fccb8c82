import Foundation
import FuzzSupport
import WebImage

/// The JPEG decoder (TurboJPEG, EXIF orientation, CMYK, DCT scaling) on any bytes: a typed error or an image.
/// The first byte picks the decode options (thumbnail, orientation, first frame only, scale-down limit).
func fuzzJPEG(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    _ = try? JPEGCoder().decode(input.payload, options: options)
    return 0
}
