import WebImage
import Foundation

/// How long an origin says its source may be cached, read once when the source is fetched and kept with its
/// bytes and its results in every tier, for answers that pass it on
/// (``ProxyConfiguration/passesSourceCacheControl``, imgproxy's `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
///
/// imgproxy copies the origin's `Cache-Control` as written, else turns its `Expires` into a `max-age`. Here
/// sources and results outlive the fetch in the caches, so the origin's text would promise its whole lifetime
/// again on every later answer: the moment the lifetime ends is kept instead, and answers count down to it.
enum SourceLifetime {
    /// When the source stops being fresh, in seconds since 1970: from `Cache-Control`'s `max-age` (less the
    /// `Age` it already had), at once for `no-cache`, `no-store` or `private` (nothing downstream may keep it as
    /// is), else from `Expires` as imgproxy reads it (an HTTP date; anything else is no lifetime). `nil` when the
    /// origin gave no lifetime: the answers keep the time to live. A lifetime is at most 2³¹ seconds, as RFC 9111
    /// reads a larger one: an origin's `max-age=1e30` is no number of seconds an answer can say.
    static func expiry(headers: HTTPHeaderFields, now: Double) -> Double? {
        if let control = headers["Cache-Control"] {
            var maxAge: Double?
            for directive in control.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                if ["no-cache", "no-store", "private"].contains(name) { return now }
                if name == "max-age", parts.count == 2,
                   let seconds = Double(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\""))),
                   seconds.isFinite, seconds >= 0 {
                    maxAge = min(seconds, longest)
                }
            }
            if let maxAge {
                let age = headers["Age"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                    .flatMap { $0.isFinite ? $0 : nil } ?? 0
                return now + max(0, maxAge - max(0, age))
            }
        }
        return headers["Expires"].flatMap(HTTPDate.parse).map { min($0.timeIntervalSince1970, now + longest) }
    }

    /// The longest lifetime kept, in seconds: 2³¹, RFC 9111's bound.
    static let longest = 2_147_483_648.0
}
