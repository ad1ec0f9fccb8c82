/// How a source URL written in a request becomes the URL fetched, as imgproxy rewrites it: first each URL
/// replacement in turn (`IMGPROXY_URL_REPLACEMENTS`; every one is tried on the result of the one before), then the
/// base URL (`IMGPROXY_BASE_URL`) in front, unless the URL already starts with it. Plain and Base64 sources alike
/// are rewritten after they are decoded, and the source policy (`--allow-source`, the schemes served) then judges
/// the rewritten URL, as imgproxy checks its allowed sources after rewriting.
public struct SourceURLRewriting: Sendable, Equatable {
    /// Put in front of every source URL that does not already start with it; empty: none.
    public var baseURL: String
    /// Applied in this order, before the base URL.
    public var replacements: [SourceURLReplacement]

    /// A rewriting with `baseURL` and `replacements`; the default changes nothing.
    public init(baseURL: String = "", replacements: [SourceURLReplacement] = []) {
        self.baseURL = baseURL
        self.replacements = replacements
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool { baseURL.isEmpty && replacements.isEmpty }

    /// The URL to fetch for `source`, a source URL as a request gives it (decoded from its plain or Base64 form).
    /// Anything else that names an image by URL for the same purpose resolves it here too.
    public func resolve(_ source: String) -> String {
        guard !isEmpty else { return source }
        var url = source
        for replacement in replacements {
            url = replacement.applied(to: url)
        }
        // Compared byte for byte, as Go compares strings: no Unicode equivalence.
        guard !baseURL.isEmpty, !url.utf8.starts(with: baseURL.utf8) else { return url }
        return baseURL + url
    }
}
