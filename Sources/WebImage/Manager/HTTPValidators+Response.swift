import Foundation

extension HTTPValidators {
    /// The validators a response carries: `ETag`, `Last-Modified`, and its freshness from
    /// `Cache-Control: max-age` (preferred, as HTTP says) or `Expires`.
    init(response: ImageResponseMetadata, now: Date = Date()) {
        var expires: Double?
        if let cacheControl = response.headers["Cache-Control"] {
            for directive in cacheControl.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                    .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                if parts.count == 2, parts[0] == "max-age", let seconds = Double(parts[1]), seconds >= 0 {
                    expires = now.timeIntervalSince1970 + seconds
                }
            }
        }
        if expires == nil, let value = response.headers["Expires"] {
            expires = Self.httpDate(value)?.timeIntervalSince1970
        }
        self.init(etag: response.etag, lastModified: response.lastModified, expires: expires)
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

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only date form servers should send.
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
