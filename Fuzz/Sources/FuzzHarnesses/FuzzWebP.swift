import Foundation
import FuzzSupport
import WebImage

/// The WebP decoder, still and animated (WebPDecode and WebPAnimDecoder), on any bytes.
/// The first byte picks the decode options (thumbnail, orientation, first frame only, scale-down limit).
func fuzzWebP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    _ = try? WebPCoder().decode(input.payload, options: options)
    return 0
}
