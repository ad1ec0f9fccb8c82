import Foundation

/// The `Cache-Control` directives of a response that matter to a private cache (RFC 9111 §5.2.2).
/// `s-maxage`, `proxy-revalidate` and `public` are for shared caches and are ignored, as a private cache must.
struct CacheControl: Sendable, Equatable {
    /// `max-age=N`: fresh for N seconds after it was generated.
    var maxAge: Double?
    /// `no-cache` (with or without field names): stored, but revalidated before every use.
    var noCache = false
    /// `no-store`: not written to any lasting cache.
    var noStore = false
    /// `must-revalidate`: once stale, never used without revalidating (how we always behave; kept for clarity).
    var mustRevalidate = false

    /// Parses one or more `Cache-Control` header values. Unknown directives are ignored; a malformed
    /// `max-age` counts as stale (`max-age=0`), as RFC 9111 §4.2.1 asks.
    init(_ value: String?) {
        guard let value else { return }
        for directive in Self.directives(value) {
            switch directive.name {
            case "max-age":
                let seconds = directive.argument.flatMap { Double($0) }.map { max(0, $0) }
                maxAge = min(maxAge ?? .infinity, seconds ?? 0)
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "must-revalidate": mustRevalidate = true
            default: break
            }
        }
    }

    /// `name[=argument]` pairs; commas inside quoted arguments (`no-cache="a, b"`) do not split.
    private static func directives(_ value: String) -> [(name: String, argument: String?)] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        return pieces.compactMap { piece in
            let parts = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingHTTPWhitespace() }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { return nil }
            let argument = parts.count == 2 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            return (name, argument)
        }
    }
}
