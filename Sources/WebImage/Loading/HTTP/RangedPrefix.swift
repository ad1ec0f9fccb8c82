import Foundation

/// An early-stop download fetched by byte ranges from an origin that serves them: rather than reading a body
/// until the decode has enough and closing the connection (while the origin has already pushed more into it), the
/// loader asks for the first bytes, then for the next ones while the early stop wants more. Every range is read to
/// its end, so the connection is kept; the origin sends only what was asked for.
struct RangedPrefix: Sendable {
    /// The first range asked for. Most early stops (a JPEG's header, an animation's first frame, the first scans
    /// of a small progressive JPEG) are served by it; each next range is twice the bytes held.
    static let firstLength = 64 * 1024

    /// The bytes the ranges brought, from the file's first byte.
    var body: Data
    /// The early stop, having read `body`.
    var watch: EarlyStopWatch
    /// The response as if the whole file had been asked for: status 200, Content-Length the file's size.
    var metadata: ImageResponseMetadata
    /// The strong validator every next range is asked with (`If-Range`), so a file that changed meanwhile comes
    /// back whole instead of as bytes of another version; `nil` when the origin gave none, and then no next range
    /// is asked for (the file is fetched plainly).
    var validator: String?
    /// The file's size, from `Content-Range`.
    var total: Int

    /// The headers that ask for the next range (the rest of the file once the early stop knows it reads it all),
    /// or `nil` without a validator.
    var nextRangeHeaders: [(String, String)]? {
        guard let validator else { return nil }
        let end = watch.readsWhole ? total - 1 : min(total, body.count * 3) - 1
        return [("Range", "bytes=\(body.count)-\(end)"), ("If-Range", validator)]
    }

    /// The headers that ask for the first range.
    static let firstRangeHeaders = [("Range", "bytes=0-\(firstLength - 1)")]

    /// The whole-file view of a `206` answer's head: status 200 and the file's size as Content-Length, without
    /// the range fields, so what reads the response (a cache, `/info`'s size) sees the file it asked for.
    static func wholeFileMetadata(of metadata: ImageResponseMetadata, total: Int) -> ImageResponseMetadata {
        var headers = metadata.headers
        headers["Content-Range"] = nil
        headers["Content-Length"] = String(total)
        var whole = metadata
        whole.statusCode = 200
        whole.headers = headers
        whole.expectedContentLength = Int64(total)
        return whole
    }
}

/// Which range of a ranged prefix a hop asks for.
enum RangeStep: Sendable {
    /// The first bytes.
    case first
    /// The bytes after those already held.
    case next(RangedPrefix)

    /// The request headers that ask for it.
    var headers: [(String, String)] {
        switch self {
        case .first: RangedPrefix.firstRangeHeaders
        case .next(let prefix): prefix.nextRangeHeaders ?? []
        }
    }
}
