import CSpng
import CTurboJPEG
import CWebP
import Foundation

/// The C libraries called directly, decoding into one reused output buffer: the speed limit our coders are
/// measured against.
enum DirectDecoders {
    /// TurboJPEG straight to RGBA, at full size or at a scaling factor of 1/`denominator`.
    static func turboJPEG(_ data: Data, into buffer: inout [UInt8], denominator: Int32 = 1) {
        guard let handle = tjInitDecompress() else { return }
        defer { tjDestroy(handle) }
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress!
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            tjDecompressHeader3(handle, bytes, UInt(raw.count), &width, &height, &subsampling, &colorspace)
            let scaledWidth = (width + denominator - 1) / denominator
            let scaledHeight = (height + denominator - 1) / denominator
            let needed = Int(scaledWidth * scaledHeight * 4)
            if buffer.count < needed { buffer = [UInt8](repeating: 0, count: needed) }
            buffer.withUnsafeMutableBufferPointer { output in
                _ = tjDecompress2(handle, bytes, UInt(raw.count), output.baseAddress, scaledWidth, 0, scaledHeight,
                                  Int32(TJPF_RGBA.rawValue), 0)
            }
        }
    }

    /// libspng to RGBA8.
    static func spng(_ data: Data, into buffer: inout [UInt8]) {
        guard let context = spng_ctx_new(0) else { return }
        defer { spng_ctx_free(context) }
        data.withUnsafeBytes { raw in
            spng_set_png_buffer(context, raw.baseAddress, raw.count)
            var size = 0
            spng_decoded_image_size(context, Int32(SPNG_FMT_RGBA8.rawValue), &size)
            if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
            buffer.withUnsafeMutableBytes { output in
                _ = spng_decode_image(context, output.baseAddress, size, Int32(SPNG_FMT_RGBA8.rawValue),
                                      Int32(SPNG_DECODE_TRNS.rawValue))
            }
        }
    }

    /// libwebp to RGBA.
    static func webp(_ data: Data, into buffer: inout [UInt8]) {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress!
            var width: Int32 = 0, height: Int32 = 0
            guard WebPGetInfo(bytes, raw.count, &width, &height) != 0 else { return }
            let needed = Int(width * height * 4)
            if buffer.count < needed { buffer = [UInt8](repeating: 0, count: needed) }
            buffer.withUnsafeMutableBufferPointer { output in
                _ = WebPDecodeRGBAInto(bytes, raw.count, output.baseAddress, needed, width * 4)
            }
        }
    }
}
