import Foundation
import FuzzSupport
import WebImage

/// The PNG and APNG decoder (libspng and our own chunk parser and frame compositor) on any bytes.
/// The first byte picks the decode options (thumbnail, orientation, first frame only, scale-down limit).
func fuzzPNG(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    _ = try? PNGCoder().decode(input.payload, options: options)
    return 0
}
