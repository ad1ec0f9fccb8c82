import Foundation
import FuzzSupport
import WebImage
import WebImageJXL

/// The JPEG XL decoder (libjxl's event loop, still and animated) and header reader on any bytes.
/// The first byte picks the decode options (thumbnail, orientation, first frame only, scale-down limit); its top
/// bits pick a frame index, so that libjxl's frame skipping is fuzzed too.
func fuzzJXL(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let choice = input.takeByte()
    var options = FuzzLimits.options(choice: choice)
    if choice & 0xC0 != 0 { options.frameIndex = Int(choice >> 6) }
    let payload = input.payload
    _ = try? JXLCoder().properties(of: payload)
    _ = try? JXLCoder().decode(payload, options: options)
    return 0
}
