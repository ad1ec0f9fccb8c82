import Foundation

/// One spelling per source URL, so that `--allow-source` prefixes compare what a URL means rather than how it is
/// written: scheme and host in lower case, the default port dropped, user info and fragment dropped (neither
/// changes what is fetched from where), percent-escapes of unreserved characters decoded and the others written
/// in upper case, and `.` and `..` path segments resolved (RFC 3986, 5.2.4 and 6.2.2). Without it
/// `http://ok.example/a/../../evil` would pass a prefix `http://ok.example/a/` yet fetch `/evil`, and
/// `HTTP://OK.example/` would be refused by a prefix `http://ok.example/`.
///
/// RFC 3986 keeps `%2F` inside a segment, but many servers do not: nginx decodes `%2F` before it resolves `..`,
/// Windows servers take `\` and `%5C` for `/`, Tomcat and Jetty drop `;parameters` first (`..;x` climbs). So a
/// path has a second reading, ``NormalForm/serverReading``, and a path whose dot segments only that reading sees
/// (``NormalForm/hidesDotSegment``) means different places to different origins.
enum SourceURLNormalisation {
    /// A URL in normal form, in the parts a prefix check needs.
    struct NormalForm: Equatable {
        /// `scheme://host[:port]`.
        var authority: String
        /// The path as RFC 3986 reads it: escapes normalised, dot segments resolved, `/` when empty.
        var path: String
        /// The query with its escapes normalised; `nil` when the URL has none.
        var query: String?

        /// The whole normal form.
        var text: String { authority + path + (query.map { "?" + $0 } ?? "") }

        /// The whole normal form with the path as a file server reads it: `%2F`, `%5C` and `\` taken for `/`
        /// (decoded once: `%252F` stays the text `%2F`, as RFC 3986 and nginx read it), then dot segments,
        /// also those carrying `;parameters`, resolved.
        var serverReading: String {
            authority + SourceURLNormalisation.serverReading(ofPath: path) + (query.map { "?" + $0 } ?? "")
        }

        /// Whether the path still has a `.` or `..` segment when read as a file server reads it. The RFC
        /// reading has resolved its own, so such a segment is next to an encoded slash or backslash (`..%2F`,
        /// `%5C..`), a raw backslash, or carries `;parameters`: the path climbs on some origins and not others.
        var hidesDotSegment: Bool {
            SourceURLNormalisation.serverSegments(ofPath: path).contains { SourceURLNormalisation.dotSegment($0) != nil }
        }
    }

    /// The normal form of an absolute `http` or `https` URL with a host; `nil` for anything else.
    static func normalised(_ url: URL) -> String? {
        normalForm(url)?.text
    }

    /// The normal form of an absolute `http` or `https` URL with a host, in parts; `nil` for anything else.
    static func normalForm(_ url: URL) -> NormalForm? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let rawHost = components.percentEncodedHost, !rawHost.isEmpty else { return nil }
        var host = normalisedEscapes(rawHost).lowercased()
        if host.utf8.contains(UInt8(ascii: ":")), !host.hasPrefix("[") { host = "[\(host)]" }
        var authority = "\(scheme)://\(host)"
        if let port = components.port, port != (scheme == "https" ? 443 : 80) { authority += ":\(port)" }
        let path = removingDotSegments(normalisedEscapes(components.percentEncodedPath))
        return NormalForm(authority: authority, path: path.isEmpty ? "/" : path,
                          query: components.percentEncodedQuery.map(normalisedEscapes))
    }

    /// `path` (escapes normalised) split where a file server may split it: at `/`, `\`, `%2F` and `%5C`.
    static func serverSegments(ofPath path: String) -> [Substring] {
        let separated = path.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%5C", with: "/")
            .replacingOccurrences(of: "\\", with: "/")
        return separated.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// `path` (escapes normalised) as a file server reads it: split by ``serverSegments(ofPath:)``, a segment
    /// whose part before `;` is `.` or `..` taken as that, and dot segments resolved.
    static func serverReading(ofPath path: String) -> String {
        removingDotSegments(serverSegments(ofPath: path).map { dotSegment($0) ?? $0 }.joined(separator: "/"))
    }

    /// `.` or `..` when `segment` is one, with or without `;parameters`; `nil` otherwise.
    static func dotSegment(_ segment: Substring) -> Substring? {
        let name = segment.prefix { $0 != ";" }
        return name == "." || name == ".." ? name : nil
    }

    /// Decodes `%XX` for letters, digits, `-`, `.`, `_` and `~` (they mean the same either way) and writes the
    /// hex digits of every other escape in upper case.
    static func normalisedEscapes(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let byte = high << 4 | low
                if isUnreserved(byte) {
                    output.append(byte)
                } else {
                    output.append(contentsOf: Array(String(format: "%%%02X", byte).utf8))
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986's remove_dot_segments: `/a/./b/../c` → `/a/c`; `..` never climbs above the root.
    static func removingDotSegments(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: ".")) else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        let joined = output.joined(separator: "/")
        return path.hasPrefix("/") && !joined.hasPrefix("/") ? "/" + joined : joined
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
