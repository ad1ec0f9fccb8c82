import CWebP
import Foundation

/// The ICC profile of an extended WebP file: its `ICCP` chunk, which comes after `VP8X` and before the image
/// data. Found by walking the RIFF chunk headers, so it costs a few reads and works on a file's first bytes.
enum WebPColorProfile {
    /// The profile, `nil` when there is none, it is unreadable, or it is sRGB.
    static func profile(in bytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard bytes.count >= 30, fourCC(bytes, 0) == "RIFF", fourCC(bytes, 8) == "WEBP", fourCC(bytes, 12) == "VP8X"
        else { return nil }
        var offset = 12
        while offset + 8 <= bytes.count {
            let type = fourCC(bytes, offset)
            let size = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            let payload = offset + 8
            guard size <= bytes.count - payload else { return nil }
            if type == "ICCP" {
                return ColorProfile(icc: Data(UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + size])))?
                    .unlessSRGB
            }
            // The image data follows the colour chunk: once it starts there is no profile.
            if ["VP8 ", "VP8L", "ALPH", "ANIM", "ANMF"].contains(type) { return nil }
            offset = payload + size + (size & 1)
        }
        return nil
    }

    private static func fourCC(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
