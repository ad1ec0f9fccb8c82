import Foundation
import WebImage

/// Photo-like JPEGs made on the spot: smooth colour fields under fine grain, as a camera's sensor leaves them. Most
/// of such a file's bytes are luma detail, which a small thumbnail never reads.
public enum GrainyPhoto {
    /// The picture's pixels, the same for every call with the same size.
    public static func pixels(width: Int, height: Int) throws -> PixelBuffer {
        var state: UInt32 = 0x9E37_79B9
        return try PixelBuffer(width: width, height: height) { raw in
            for y in 0..<height {
                for x in 0..<width {
                    // xorshift32: cheap, repeatable grain.
                    state ^= state << 13
                    state ^= state >> 17
                    state ^= state << 5
                    let grain = Int(state & 63) - 32
                    let offset = (y * width + x) * 4
                    raw[offset] = UInt8(clamping: x * 255 / width + grain)
                    raw[offset + 1] = UInt8(clamping: y * 255 / height + grain)
                    raw[offset + 2] = UInt8(clamping: 160 - (x + y) * 96 / (width + height) + grain)
                    raw[offset + 3] = 255
                }
            }
        }
    }

    /// The picture as a JPEG, progressive (libjpeg's standard 10-scan script) or baseline, 4:2:0, quality 85.
    public static func jpeg(width: Int, height: Int, progressive: Bool) throws -> Data {
        try ImageCoders.shared.encode(Image(pixels: pixels(width: width, height: height)), as: .jpeg,
                                      options: EncodeOptions(quality: 0.85, progressive: progressive))
    }
}
