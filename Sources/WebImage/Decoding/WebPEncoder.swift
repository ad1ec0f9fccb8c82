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

/// One WebPPicture holding a copy of a ``PixelBuffer``, freed with the object.
final class WebPPictureHolder {
    var picture = WebPPicture()

    /// Imports `pixels`; `argb` keeps them as ARGB (lossless and animation encoding) instead of converting to
    /// YUV for the lossy encoder.
    init(_ pixels: PixelBuffer, argb: Bool) throws {
        guard WebPPictureInit(&picture) != 0 else {
            throw ImageError(.unsupportedFormat, "WebP: the libwebp encoder library does not match its headers")
        }
        guard pixels.width <= Int(WEBP_MAX_DIMENSION), pixels.height <= Int(WEBP_MAX_DIMENSION) else {
            throw ImageError(.imageTooLarge, "WebP: \(pixels.size) is over the \(WEBP_MAX_DIMENSION)-pixel side limit")
        }
        picture.use_argb = argb ? 1 : 0
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        let imported = pixels.withUnsafeBytes { rgba in
            WebPPictureImportRGBA(&picture, rgba.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                  Int32(pixels.bytesPerRow))
        }
        guard imported != 0 else { throw WebPEncoder.encodingError(picture.error_code) }
    }

    deinit { WebPPictureFree(&picture) }
}
