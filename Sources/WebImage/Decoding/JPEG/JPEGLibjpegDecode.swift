import CJPEGIncremental
import Foundation

/// The whole-file decode through libjpeg's own API, for frames TurboJPEG refuses before decoding anything, and
/// for progressive files, whose scans it counts while decoding.
///
/// TurboJPEG 2.1's header call knows only the common sampling arrangements (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1 and
/// gray) and fails on any other, although libjpeg upsamples every arrangement the standard allows. The one that
/// matters is the RGB 2×2, 2×2, 1×1 frame (blue at half resolution) of the XYB JPEGs that jpegli writes. The
/// settings are TurboJPEG's (accurate integer IDCT, smooth upsampling, block smoothing for progressive files), so
/// the pixels are what libjpeg's djpeg gives.
///
/// A progressive file is read scan by scan, and a scan costs its components' every block however few bytes it
/// has: a flat 7071×7071 file of 135 KB whose refinement scan is repeated 498 times took TurboJPEG 20 s, and
/// what refused it (libjpeg's warning about the repeated scans) was only read after the decode. Here the decoder
/// is strict (the first such warning stops it) and has a lower scan limit (``WI_JPEG_MAX_SCANS``).
enum JPEGLibjpegDecode {
    /// Decodes the stored (not yet oriented) pixels of a whole file at `factor` as RGBA. CMYK and YCCK frames are
    /// decoded to CMYK and converted in place by `cmyk`, stored inverted when `inverted` (an Adobe segment).
    static func decodePixels(_ bytes: UnsafeRawBufferPointer, factor: JPEGScaleFactor, cmyk: CMYKColorConversion,
                             inverted: Bool) throws -> PixelBuffer
    {
        guard let decoder = wi_jpeg_create() else {
            throw ImageError(.imageTooLarge, "JPEG: libjpeg could not allocate a decoder")
        }
        defer { wi_jpeg_destroy(decoder) }
        wi_jpeg_set_strict(decoder)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageError(.badImageData, "the data is empty")
        }
        guard wi_jpeg_append(decoder, base, bytes.count) == 0 else {
            throw ImageError(.imageTooLarge, "JPEG: out of memory buffering the input")
        }
        var header = wi_jpeg_header()
        try check(wi_jpeg_read_header(decoder, &header), decoder)
        var width: UInt32 = 0, height: UInt32 = 0
        try check(wi_jpeg_start(decoder, UInt32(factor.numerator * 8 / factor.denominator), &width, &height), decoder)
        let stride = Int(width) * PixelBuffer.bytesPerPixel
        let pixels = try PixelBuffer(width: Int(width), height: Int(height)) { output in
            let destination = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            if header.has_multiple_scans != 0 {
                try check(wi_jpeg_consume(decoder), decoder)
                try check(wi_jpeg_render(decoder, wi_jpeg_input_scan(decoder), 1, destination, stride), decoder)
                try check(wi_jpeg_finish(decoder), decoder)
            } else {
                var rows: UInt32 = 0
                try check(wi_jpeg_read_rows(decoder, destination, stride, &rows), decoder)
            }
            if header.is_cmyk != 0 { cmyk.convert(output, inverted: inverted) }
        }
        try JPEGPushDecoder.checkWarnings(decoder)
        return pixels
    }

    /// Throws libjpeg's error; a suspension means the data ran out, since the whole file was given.
    private static func check(_ status: wi_jpeg_status, _ decoder: OpaquePointer) throws {
        switch status {
        case WI_JPEG_OK: return
        case WI_JPEG_SUSPENDED: throw ImageError(.badImageData, "JPEG: the data ends before the image does")
        default: throw JPEGPushDecoder.failure(of: decoder)
        }
    }
}
