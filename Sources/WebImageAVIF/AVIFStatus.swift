import CAVIF
import WebImage

/// Turns libavif's result codes into the library's typed errors.
enum AVIFStatus {
    /// The error for a failed libavif call, with libavif's own diagnostic when it left one.
    ///
    /// libavif 0.11 reports a header over `imageSizeLimit` or `imageDimensionLimit` as a BMFF parse failure
    /// whose diagnostic says "dimensions are too large": that one is a limit, not corrupt data.
    static func error(_ result: avifResult, diagnostics: avifDiagnostics? = nil, action: String) -> ImageError {
        let detail = diagnostics.map(message(of:)).flatMap { $0.isEmpty ? nil : $0 }
            ?? String(cString: avifResultToString(result))
        let text = "AVIF: \(action) failed: \(detail)"
        switch result {
        case AVIF_RESULT_BMFF_PARSE_FAILED where detail.contains("too large"):
            return ImageError(.imageTooLarge, text)
        case AVIF_RESULT_OUT_OF_MEMORY:
            return ImageError(.imageTooLarge, text)
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED, AVIF_RESULT_UNSUPPORTED_DEPTH:
            return ImageError(.unsupportedFormat, text)
        default:
            return ImageError(.badImageData, text)
        }
    }

    /// Throws unless `result` is `AVIF_RESULT_OK`.
    static func check(_ result: avifResult, diagnostics: avifDiagnostics? = nil, action: String) throws {
        guard result == AVIF_RESULT_OK else { throw error(result, diagnostics: diagnostics, action: action) }
    }

    /// The NUL-terminated text in a diagnostics block (a fixed C array, imported as a tuple).
    static func message(of diagnostics: avifDiagnostics) -> String {
        withUnsafeBytes(of: diagnostics.error) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
