import CTurboJPEG
import Synchronization

/// One TurboJPEG compressor or decompressor instance. TurboJPEG handles keep per-call state, so one handle is
/// used by one caller at a time; ``TurboJPEGHandlePool`` hands them out exclusively.
final class TurboJPEGHandle: @unchecked Sendable {  // C boundary: a tjhandle, owned by one caller at a time
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

    /// A warning whose text is one of ``harmlessWarnings``.
    var isHarmless: Bool {
        isWarning && Self.harmlessWarnings.contains { message.contains($0) }
    }
}

/// A few idle TurboJPEG handles for reuse.
///
/// Measured on this project's machine (CPU time, one core): creating and destroying a decompressor costs about
/// 0.3–1 µs, about 3% of decoding a 64×48 JPEG (15.6 µs) and nothing measurable for 800×600 (2 ms). A handle is
/// therefore cheap to make; the pool only saves that sliver for floods of tiny images. A handle whose call
/// failed is destroyed rather than kept, so no state from a damaged file can leak into the next decode.
final class TurboJPEGHandlePool: Sendable {
    /// Decompressors for ``JPEGDecoder``.
    static let decompressors = TurboJPEGHandlePool(maximumIdle: 8) { tjInitDecompress() }
    /// Compressors for ``JPEGEncoder``.
    static let compressors = TurboJPEGHandlePool(maximumIdle: 4) { tjInitCompress() }

    private let idle: Mutex<[TurboJPEGHandle]>
    private let maximumIdle: Int
    private let make: @Sendable () -> tjhandle?

    init(maximumIdle: Int, make: @escaping @Sendable () -> tjhandle?) {
        self.idle = Mutex([])
        self.maximumIdle = maximumIdle
        self.make = make
    }

    /// Runs `body` with a handle no one else uses meanwhile. The handle goes back to the pool only when `body`
    /// returns normally.
    func withHandle<R>(_ body: (TurboJPEGHandle) throws -> R) throws -> R {
        let reused = idle.withLock { $0.popLast() }
        guard let handle = reused ?? TurboJPEGHandle(make) else {
            throw ImageError(.imageTooLarge, "TurboJPEG could not allocate a handle (out of memory)")
        }
        let result = try body(handle)
        idle.withLock { handles in
            if handles.count < maximumIdle { handles.append(handle) }
        }
        return result
    }
}
