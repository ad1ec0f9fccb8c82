import Foundation

/// A small cookie store for requests that handle cookies: cookies are kept per host (exact host match, no
/// domain or path scoping; like a browser's, not per port or scheme), replaced by name, and removed by
/// `Max-Age=0` or a past `Expires`. A `Secure` cookie is stored only from `https` and sent only over `https`.
/// Enough for image servers that gate access with a session cookie; not a browser's jar.
package final class CookieJar: Sendable {
    private let cookies = Locked<[String: [(name: String, value: String, secure: Bool)]]>([:])

    /// An empty jar.
    package init() {}

    /// The `Cookie` header value for `url`'s host, or `nil` when none is stored (`Secure` cookies count only
    /// for `https`).
    package func cookieHeader(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let isSecure = url.scheme?.lowercased() == "https"
        let stored = cookies.withLock { $0[host] ?? [] }.filter { isSecure || !$0.secure }
        guard !stored.isEmpty else { return nil }
        return stored.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies of every `Set-Cookie` value received from `url` (a `Secure` one only from `https`).
    package func store(setCookieValues values: [String], from url: URL) {
        guard let host = url.host?.lowercased(), !values.isEmpty else { return }
        let isSecure = url.scheme?.lowercased() == "https"
        cookies.withLock { jar in
            var stored = jar[host] ?? []
            for value in values {
                guard let cookie = Self.parse(value), isSecure || !cookie.secure else { continue }
                stored.removeAll { $0.name == cookie.name }
                if !cookie.expired { stored.append((name: cookie.name, value: cookie.value, secure: cookie.secure)) }
            }
            jar[host] = stored.isEmpty ? nil : stored
        }
    }

    /// Forgets every cookie.
    package func removeAll() {
        cookies.withLock { $0.removeAll() }
    }

    private static func parse(_ header: String) -> (name: String, value: String, expired: Bool, secure: Bool)? {
        let parts = header.split(separator: ";").map { $0.trimmingHTTPWhitespace() }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = String(pair[..<equals]).trimmingHTTPWhitespace()
        let value = String(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return nil }
        var expired = false, secure = false
        for attribute in parts.dropFirst() {
            let lower = attribute.lowercased()
            if lower == "secure" { secure = true }
            if lower.hasPrefix("max-age="), let age = Int(lower.dropFirst("max-age=".count)), age <= 0 {
                expired = true
            }
            if lower.hasPrefix("expires="), let date = HTTPDate.parse(String(attribute.dropFirst("expires=".count))),
               date < Date() {
                expired = true
            }
        }
        return (name, value, expired, secure)
    }
}
