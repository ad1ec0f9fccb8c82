import CWebP

/// libwebp's decoder status codes as `ImageError`s.
enum WebPStatus {
    static func error(_ status: VP8StatusCode, action: String) -> ImageError {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY:
            return ImageError(.imageTooLarge, "WebP: out of memory while \(action)")
        case VP8_STATUS_NOT_ENOUGH_DATA:
            return ImageError(.badImageData, "WebP: the data ends early (\(action))")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            return ImageError(.badImageData, "WebP: a feature libwebp does not support (\(action))")
        default:
            return ImageError(.badImageData, "WebP: corrupt bitstream (status \(status.rawValue), \(action))")
        }
    }
}
