import WebImage
import HTTPTypes

/// The header fields of a route's answer to a plain `GET` for its result in memory, kept for the rest of the
/// second they were made in. Every field of that answer follows from the route, the result and the current second
/// (`Date`, and the `Cache-Control` of a URL that expires), so a hot URL's head is made once a second instead of
/// once a request: making it was a tenth of the server's work on a memory hit.
///
/// One head is kept: the latest result's. A result made again (a new tag, or a body of another length: the head
/// carries `Content-Length`) or another stamp (another server name) replaces it. Only the fields are kept, never
/// the body: a route outlives the memory tier's copy of its result.
final class HitHeadMemo: Sendable {
    private struct Kept: Sendable {
        var etag: String
        var bytes: Int
        var second: Int
        var server: String?
        var fields: HTTPFields
    }

    private let kept = Locked<Kept?>(nil)

    /// The fields kept for the result tagged `etag` with a body of `bytes`, in `second`, stamped for `server`;
    /// `nil` when another result's, second's or server's are kept, or none.
    func fields(etag: String, bytes: Int, second: Int, server: String?) -> HTTPFields? {
        kept.withLock { kept in
            guard let kept, kept.second == second, kept.bytes == bytes, kept.server == server, kept.etag == etag
            else { return nil }
            return kept.fields
        }
    }

    /// Keeps `fields` as the head of the result tagged `etag` with a body of `bytes`, in `second`, stamped for
    /// `server`.
    func keep(_ fields: HTTPFields, etag: String, bytes: Int, second: Int, server: String?) {
        kept.withLock { $0 = Kept(etag: etag, bytes: bytes, second: second, server: server, fields: fields) }
    }
}
