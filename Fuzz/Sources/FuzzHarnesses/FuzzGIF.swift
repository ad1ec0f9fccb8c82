import Foundation
import FuzzSupport
import WebImage

/// The GIF decoder (giflib, our frame compositor and colour mapping) on any bytes, through the lenient entry
/// point that keeps the frames before a damaged one (the strict `decode` is a wrapper around it).
/// The first byte picks the decode options.
func fuzzGIF(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let options = FuzzLimits.options(choice: input.takeByte())
    if let partial = try? GIFCoder().decodeCompleteFrames(input.payload, options: options) {
        precondition(!partial.image.frames.isEmpty, "a GIF decode returned no frames")
    }
    return 0
}
