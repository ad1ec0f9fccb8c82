import Foundation
import FuzzSupport
import WebImage
import WebImageAVIF

/// The AVIF coder (libavif's container parser, dav1d, the orientation and timing-table readers) on any bytes,
/// decoding and reading properties. The first byte picks the decode options (thumbnail, orientation, first
/// frame only, scale-down limit); its top bit asks for one frame by index instead, from the second byte.
func fuzzAVIF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let choice = input.takeByte()
    var options = FuzzLimits.options(choice: choice)
    if choice & 0x80 != 0 { options.frameIndex = Int(input.takeByte() % 4) }
    let payload = input.payload
    let coder = AVIFCoder()
    _ = try? coder.decode(payload, options: options)
    _ = try? coder.properties(of: payload)
    return 0
}
