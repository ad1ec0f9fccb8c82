import CTurboJPEG

/// One TurboJPEG compressor or decompressor instance. A handle is not thread-safe and keeps state between
/// calls, so each encode or decode makes its own (see ``withDecompressor(_:)``) and never shares it.
final class TurboJPEGHandle {
    let raw: tjhandle

    /// Creates a handle with `initialize` (`tjInitDecompress` or `tjInitCompress`); `nil` when out of memory.
    init?(_ initialize: () -> tjhandle?) {
        guard let raw = initialize() else { return nil }
        self.raw = raw
    }

    deinit { tjDestroy(raw) }

    /// What the last failed call reported.
    var lastFailure: TurboJPEGFailure {
        let message = tjGetErrorStr2(raw).map { String(cString: $0) } ?? "unknown TurboJPEG error"
        return TurboJPEGFailure(message: message, isWarning: tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue))
    }
}

/// A failed TurboJPEG call: its message and whether libjpeg finished the work anyway (a warning).
struct TurboJPEGFailure: Equatable {
    var message: String
    var isWarning: Bool

    /// libjpeg warnings that leave the pixels intact. Every other warning (premature end of data, a bad Huffman
    /// code, a marker inside the entropy-coded data, a lost restart marker, a bogus progression) means some
    /// blocks were filled in by guesswork, so the decode counts as failed and nothing half-grey gets cached.
    ///
    /// Matched on libjpeg's message text (jerror.h), which has not changed in decades:
    /// - stray bytes between segments (JWRN_EXTRANEOUS_DATA), common in files from some cameras and editors;
    /// - an unknown JFIF major version (JWRN_JFIF_MAJOR);
    /// - a malformed ICC profile segment (JWRN_BOGUS_ICC), which we do not read;
    /// - meaningless Ss/Se/Ah/Al values in a sequential scan header (JWRN_NOT_SEQUENTIAL), which libjpeg ignores.
    static let harmlessWarnings = [
        "extraneous bytes before marker",
        "unknown JFIF revision number",
        "bad ICC marker",
        "Invalid SOS parameters for sequential JPEG",
    ]

    /// The header call's refusal of a sampling arrangement outside TurboJPEG's list (libjpeg decodes it).
    var isUnknownSubsampling: Bool {
        !isWarning && message.contains("Could not determine subsampling type")
    }

    /// A warning whose text is one of ``harmlessWarnings``.
    var isHarmless: Bool {
        isWarning && Self.harmlessWarnings.contains { message.contains($0) }
    }
}

extension TurboJPEGHandle {
    /// Runs `body` with a new decompressor, destroyed afterwards.
    ///
    /// Handles are not pooled, on purpose. libjpeg keeps quantization and Huffman tables in the decompressor
    /// between images (for abbreviated streams), so a reused handle decodes a file that lacks its DQT segment
    /// with the tables of whatever image it decoded before: garbage that depends on history, where a fresh
    /// handle reports "Quantization table 0x00 was not defined". A fresh handle costs 0.3–1 µs (CPU time on this
    /// project's machine), about 3% of decoding a 64×48 JPEG (15.6 µs) and nothing measurable at 800×600 (2 ms).
    static func withDecompressor<R>(_ body: (TurboJPEGHandle) throws -> R) throws -> R {
        try body(make(tjInitDecompress))
    }

    /// Runs `body` with a new compressor, destroyed afterwards (0.24 µs; see ``withDecompressor(_:)``).
    static func withCompressor<R>(_ body: (TurboJPEGHandle) throws -> R) throws -> R {
        try body(make(tjInitCompress))
    }

    private static func make(_ initialize: () -> tjhandle?) throws -> TurboJPEGHandle {
        guard let handle = TurboJPEGHandle(initialize) else {
            throw ImageError(.imageTooLarge, "TurboJPEG could not allocate a handle (out of memory)")
        }
        return handle
    }
}
