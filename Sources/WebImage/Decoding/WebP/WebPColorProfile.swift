import CWebP
import Foundation

/// The ICC profile of an extended WebP file: its `ICCP` chunk, which comes after `VP8X` and before the image
/// data. Found by walking the RIFF chunk headers, so it costs a few reads and works on a file's first bytes.
enum WebPColorProfile {
    /// The profile, `nil` when there is none, it is unreadable, or it is sRGB.
    static func profile(in bytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard bytes.count >= 30, ImageFormat.detect(bytes: bytes) == .webp,
              WebPChunkHeader(bytes, at: 12)?.type == "VP8X"
        else { return nil }
        var offset = 12
        while let chunk = WebPChunkHeader(bytes, at: offset) {
            guard chunk.payload.upperBound <= bytes.count else { return nil }
            if chunk.type == "ICCP" {
                return ColorProfile(icc: Data(UnsafeRawBufferPointer(rebasing: bytes[chunk.payload])))?.unlessSRGB
            }
            // The image data follows the colour chunk: once it starts there is no profile.
            if ["VP8 ", "VP8L", "ALPH", "ANIM", "ANMF"].contains(chunk.type) { return nil }
            offset = chunk.next
        }
        return nil
    }
}
