import Foundation
import FuzzSupport
import WebImage

/// Animated images decode their frames lazily from the file (GIF and animated WebP sources, with key frames
/// and a frame buffer): open any bytes, then draw every frame forwards and a few out of order.
/// The first byte picks the decode options, the second the buffer size and key-frame interval.
func fuzzAnimatedImage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let decodeOptions = FuzzLimits.options(choice: input.takeByte())
    let shape = input.takeByte()
    var options = AnimatedImage.Options()
    options.decodeOptions = decodeOptions
    options.decodeFirstFrameOnly = decodeOptions.firstFrameOnly
    options.maxBufferSize = shape & 1 == 0 ? nil : Int(shape) * 4096
    options.keyframeInterval = Int(shape >> 4) + 1
    guard let image = try? AnimatedImage(data: input.payload, options: options) else { return 0 }
    let frameCount = image.frameCount
    for index in 0..<frameCount {
        _ = try? image.frame(at: index)
    }
    // Seeking backwards goes through the key frames.
    for index in stride(from: frameCount - 1, through: 0, by: -3) {
        _ = try? image.frame(at: index)
    }
    _ = try? image.frame(at: frameCount)  // one past the end: an error, not a trap
    return 0
}
