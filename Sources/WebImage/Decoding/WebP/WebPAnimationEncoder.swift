import CWebP
import Foundation

/// Writes animated WebP files with libwebp's WebPAnimEncoder from composited frames: it finds the changed
/// rectangle of each frame and picks blending and disposal itself. Durations and the loop count are kept.
enum WebPAnimationEncoder {
    /// The longest duration one frame can store (24 bits of milliseconds).
    static let longestMilliseconds = (1 << 24) - 1

    static func encode(_ frames: [ImageFrame], loopCount: Int, options: EncodeOptions) throws -> Data {
        guard let size = frames.first?.pixels.size else {
            throw ImageError(.badImageData, "WebP: an animation needs frames")
        }
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw ImageError(.unsupportedFormat, "WebP: the libwebp mux library does not match its headers")
        }
        encoderOptions.anim_params.loop_count = Int32(min(max(loopCount, 0), 65_535))
        guard size.width <= Int(WEBP_MAX_DIMENSION), size.height <= Int(WEBP_MAX_DIMENSION),
              let encoder = WebPAnimEncoderNew(Int32(size.width), Int32(size.height), &encoderOptions) else {
            throw ImageError(.imageTooLarge, "WebP: cannot make an animation of \(size)")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = try WebPEncoder.configuration(for: options)

        var timestamp = 0
        for (index, frame) in frames.enumerated() {
            guard frame.pixels.size == size else {
                throw ImageError(.badImageData, "WebP: frame \(index) is \(frame.pixels.size), the canvas \(size)")
            }
            let picture = try WebPPictureHolder(frame.pixels, argb: true)
            guard WebPAnimEncoderAdd(encoder, &picture.picture, Int32(timestamp), &config) != 0 else {
                throw failure(encoder, "adding frame \(index)")
            }
            timestamp += milliseconds(frame.duration)
            guard timestamp <= Int(Int32.max) else {
                throw ImageError(.badImageData, "WebP: the animation is longer than libwebp can time")
            }
        }
        // A last call without a picture sets how long the final frame stays.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0 else {
            throw failure(encoder, "closing the animation")
        }
        var output = WebPData()
        WebPDataInit(&output)
        guard WebPAnimEncoderAssemble(encoder, &output) != 0 else { throw failure(encoder, "assembling the file") }
        defer { WebPDataClear(&output) }
        guard let bytes = output.bytes, output.size > 0 else {
            throw ImageError(.badImageData, "WebP: the animation encoder produced no data")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A frame's stored duration: rounded to milliseconds, at least 1 (timestamps must grow); a frame without a
    /// usable duration gets the 100 ms players would show it for anyway.
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 100 }
        return min(max(Int((seconds * 1000).rounded()), 1), longestMilliseconds)
    }

    private static func failure(_ encoder: OpaquePointer, _ action: String) -> ImageError {
        let reason = WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? "unknown error"
        return ImageError(.badImageData, "WebP: \(reason) while \(action)")
    }
}
