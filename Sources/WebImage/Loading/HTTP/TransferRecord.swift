import Foundation

/// The bytes of a broken transfer and the validator (a strong ETag or a Last-Modified date) that lets a later
/// attempt ask for the rest with `Range` + `If-Range`.
struct ResumePoint: Sendable, Equatable {
    var data: Data
    var validator: String

    /// The headers that ask for the bytes after `data`, only if they are still the same representation.
    var headers: HTTPHeaderFields {
        ["Range": "bytes=\(data.count)-", "If-Range": validator]
    }
}

/// What the HTTP loader learned during one attempt, for the downloader's retry decision: the status code and,
/// when the body broke off, what had arrived and how to resume it.
final class TransferRecord: Sendable {
    private struct State {
        var statusCode: Int?
        var resumePoint: ResumePoint?
    }

    private let state = Locked(State())

    /// The status code of the last response head seen (after redirects).
    var statusCode: Int? { state.withLock { $0.statusCode } }

    /// Where a new attempt may continue, when the broken one got bytes and a usable validator.
    var resumePoint: ResumePoint? { state.withLock { $0.resumePoint } }

    func noteStatus(_ code: Int) {
        state.withLock { $0.statusCode = code }
    }

    func noteInterrupted(body: Data, validator: String?) {
        guard !body.isEmpty, let validator else { return }
        state.withLock { $0.resumePoint = ResumePoint(data: body, validator: validator) }
    }

    /// The validator `If-Range` may use: a strong ETag, else Last-Modified; `nil` for weak ETags, encoded bodies
    /// (ranges would count encoded bytes) or responses that gave neither.
    static func resumeValidator(for metadata: ImageResponseMetadata) -> String? {
        if let encoding = metadata.contentEncoding, encoding.lowercased() != "identity" { return nil }
        if let etag = metadata.etag, !etag.hasPrefix("W/") { return etag }
        return metadata.lastModified
    }
}
