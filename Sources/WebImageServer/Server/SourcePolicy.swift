import Foundation
import WebImage

/// Which source URLs a proxy fetches at all, before any connection: http and https only (so no request can make it
/// read a local file or a `data:` payload), and, when prefixes are configured, only URLs starting with one. The
/// prefix check runs on the first URL and, through ``hopCheck``, on every redirect target; both compare the
/// normal forms of URL and prefix (``SourceURLNormalisation``), so neither `..` segments nor another spelling of
/// the scheme, host or escapes can lead outside a prefix, or wrongly refuse a URL inside one. The addresses a URL
/// resolves to are checked per hop by the downloader's address policy.
struct SourcePolicy: Sendable {
    /// The prefixes as configured (an empty list allows every http and https source).
    let allowedPrefixes: [String]
    /// Their normal forms, which are what URLs are compared with.
    private let normalisedPrefixes: [String]

    init(allowedPrefixes: [String]) {
        self.allowedPrefixes = allowedPrefixes
        normalisedPrefixes = allowedPrefixes.map(Self.normalisedPrefix)
    }

    /// The URL to fetch for `source`, or the 404 that refuses it (imgproxy does not tell a client why).
    func check(_ source: String) throws(ProxyError) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased() else {
            throw .invalidURL("the source \"\(source.prefix(80))\" is not an absolute URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw .sourceNotAllowed("only http and https sources are fetched, not \(scheme.prefix(16)):")
        }
        guard url.host?.isEmpty == false else {
            throw .invalidURL("the source \"\(source.prefix(80))\" has no host")
        }
        guard allows(url) else {
            throw .sourceNotAllowed("the source is not under an allowed prefix")
        }
        return url
    }

    /// Whether `url` (in its normal form) starts with an allowed prefix; always when none is configured.
    func allows(_ url: URL) -> Bool {
        guard !normalisedPrefixes.isEmpty else { return true }
        guard let normalised = SourceURLNormalisation.normalised(url) else { return false }
        return normalisedPrefixes.contains { normalised.hasPrefix($0) }
    }

    /// The check the downloader runs before every hop, redirects included: a hop outside the allowed prefixes
    /// is refused before anything is sent to it. `nil` when no prefix is configured (nothing to check).
    var hopCheck: HTTPHopCheck? {
        guard !normalisedPrefixes.isEmpty else { return nil }
        let policy = self
        return { hop in
            policy.allows(hop.url) ? .allow : .refuse(hop.index == 0
                ? "the source is not under an allowed prefix"
                : "a redirect leads outside the allowed source prefixes")
        }
    }

    /// A prefix in normal form. A prefix that is a whole URL is normalised like one (so `HTTP://Ok.Example`
    /// means `http://ok.example/`, which also keeps `http://ok.example.evil.test/` out); anything else is
    /// compared as written, with its scheme in lower case.
    static func normalisedPrefix(_ prefix: String) -> String {
        if let url = URL(string: prefix), let normalised = SourceURLNormalisation.normalised(url) {
            return normalised
        }
        return prefix.lowercased()
    }
}
