import Foundation

extension HTTPValidators {
    /// The validators a response carries (`ETag`, `Last-Modified`) and the moment it stops being fresh, as a
    /// private cache computes it (RFC 9111 §4.2): the freshness lifetime from `max-age`, else `Expires` minus
    /// `Date`, else, for a response with `Last-Modified` only, a tenth of its age then (at most a day, the
    /// heuristic browsers use); minus the age it already had (`Age`, or `Date` in the past). `no-cache` makes
    /// it stale from the start: it is stored, but revalidated before each use. `s-maxage` is ignored.
    /// `receivedAt` is when the response arrived.
    init(response: ImageResponseMetadata, receivedAt now: Date = Date()) {
        let headers = response.headers
        let control = CacheControl(headers["Cache-Control"])
        let date = headers["Date"].flatMap(HTTPDate.parse)
        let lifetime: Double? = if control.noCache {
            0
        } else if let maxAge = control.maxAge {
            maxAge
        } else if let expiresHeader = headers["Expires"] {
            // An invalid Expires (like "0") means "already expired".
            HTTPDate.parse(expiresHeader).map { max(0, $0.timeIntervalSince(date ?? now)) } ?? 0
        } else if let lastModified = response.lastModified.flatMap(HTTPDate.parse) {
            min(max(0, (date ?? now).timeIntervalSince(lastModified)) / 10, 86_400)
        } else {
            nil
        }
        let apparentAge = date.map { max(0, now.timeIntervalSince($0)) } ?? 0
        let ageHeader = headers["Age"].flatMap { Double($0.trimmingHTTPWhitespace()) } ?? 0
        let initialAge = max(apparentAge, max(0, ageHeader))
        let expires = lifetime.map { now.timeIntervalSince1970 + max(0, $0 - initialAge) }
        self.init(etag: response.etag, lastModified: response.lastModified, expires: expires)
    }

    /// Whether the stored response may still be used without asking the server, at `now`. A response that
    /// said nothing about its freshness is stale: with nothing to go by, asking is the safe side.
    func isFresh(at now: Date = Date()) -> Bool {
        guard let expires else { return false }
        return now.timeIntervalSince1970 < expires
    }

    /// Whether there is anything to revalidate with.
    var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// The conditional request headers: `If-None-Match` and `If-Modified-Since`.
    var conditionalHeaders: HTTPHeaderFields {
        var headers = HTTPHeaderFields()
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// This entry's validators after a `304 Not Modified`: the 304's own `ETag`, `Last-Modified` and freshness
    /// replace the stored ones where it sends them (RFC 9111 §4.3.4); validators it leaves out are kept. Its
    /// freshness replaces the stored one: servers must repeat `Cache-Control` and `Expires` on a 304, and one
    /// that does not leaves the entry stale, so it is asked again next time (the safe side).
    func refreshed(by notModified: ImageResponseMetadata, receivedAt now: Date = Date()) -> HTTPValidators {
        let fresh = HTTPValidators(response: notModified, receivedAt: now)
        return HTTPValidators(etag: fresh.etag ?? etag, lastModified: fresh.lastModified ?? lastModified,
                              expires: fresh.expires)
    }
}

extension ImageResponseMetadata {
    /// Whether the response forbids lasting storage (`Cache-Control: no-store`): it is used, kept in memory for
    /// the caller, and never written to disk.
    var forbidsStorage: Bool { CacheControl(headers["Cache-Control"]).noStore }
}
