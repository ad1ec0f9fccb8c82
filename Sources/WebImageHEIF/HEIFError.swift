import CHeif
import WebImage

/// Turns libheif's error structs into ``ImageError``s with the library's own codes.
enum HEIFError {
    /// Throws the ``ImageError`` for `error` unless it reports success. `action` says what was being done.
    static func check(_ error: heif_error, _ action: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw imageError(error, action)
    }

    static func imageError(_ error: heif_error, _ action: String) -> ImageError {
        let detail = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        let message = "HEIF: \(action): \(detail)"
        if error.subcode == heif_suberror_Security_limit_exceeded { return ImageError(.imageTooLarge, message) }
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return ImageError(.unsupportedFormat, message)
        case heif_error_Memory_allocation_error:
            return ImageError(.imageTooLarge, message)
        default:
            // Invalid input, a decoder plugin that rejects the bitstream, and anything unexpected: the bytes are bad.
            return ImageError(.badImageData, message)
        }
    }
}
