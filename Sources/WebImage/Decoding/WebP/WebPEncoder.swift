import CWebP
import Foundation

/// Writes still WebP files with libwebp: lossy at ``EncodeOptions/clampedQuality`` × 100, or lossless
/// (``EncodeOptions/lossless``), keeping alpha either way.
enum WebPEncoder {
    static func encode(_ pixels: PixelBuffer, options: EncodeOptions) throws -> Data {
        var config = try configuration(for: options)
        let picture = try WebPPictureHolder(pixels, argb: options.lossless)
        let writer = UnsafeMutablePointer<WebPMemoryWriter>.allocate(capacity: 1)
        WebPMemoryWriterInit(writer)
        defer {
            WebPMemoryWriterClear(writer)
            writer.deallocate()
        }
        picture.picture.writer = WebPMemoryWrite
        picture.picture.custom_ptr = UnsafeMutableRawPointer(writer)
        guard WebPEncode(&config, &picture.picture) != 0 else {
            throw encodingError(picture.picture.error_code)
        }
        guard let bytes = writer.pointee.mem, writer.pointee.size > 0 else {
            throw ImageError(.badImageData, "WebP: the encoder produced no data")
        }
        return Data(bytes: bytes, count: writer.pointee.size)
    }

    /// libwebp's settings for `options`. Lossless keeps the colour of fully transparent pixels (`exact`), so a
    /// round trip gives back every byte.
    static func configuration(for options: EncodeOptions) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw ImageError(.unsupportedFormat, "WebP: the libwebp encoder library does not match its headers")
        }
        if options.lossless {
            config.lossless = 1
            config.exact = 1
        } else {
            config.quality = Float(options.clampedQuality * 100)
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw ImageError(.badImageData, "WebP: libwebp refused the encoder settings")
        }
        return config
    }

    static func encodingError(_ code: WebPEncodingError) -> ImageError {
        switch code {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
            ImageError(.imageTooLarge, "WebP: out of memory while encoding")
        case VP8_ENC_ERROR_BAD_DIMENSION:
            ImageError(.imageTooLarge, "WebP: sides are limited to \(WEBP_MAX_DIMENSION) pixels")
        default:
            ImageError(.badImageData, "WebP: encoding failed (libwebp error \(code.rawValue))")
        }
    }
}
