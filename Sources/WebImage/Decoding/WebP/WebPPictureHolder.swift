import CWebP

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
