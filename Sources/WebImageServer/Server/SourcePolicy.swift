import Foundation
import WebImage

/// Which source URLs a proxy fetches at all, before any connection: http and https only (so no request can make it
/// read a local file or a `data:` payload), and, when prefixes are configured, only URLs starting with one. The
/// prefix check runs on the first URL and, through ``hopCheck``, on every redirect target; both compare the
/// normal forms of URL and prefix (``SourceURLNormalisation``), so neither `..` segments nor another spelling of
/// the scheme, host or escapes can lead outside a prefix, or wrongly refuse a URL inside one. The addresses a URL
/// resolves to are checked per hop by the downloader's address policy.
///
/// Origins disagree about `%2F`, `%5C`, `\` and `..;x` (nginx resolves `/f/..%2Fprivate` to `/private`, RFC 3986
/// does not), so under prefixes a URL must start with a prefix in both readings of its path, as written and as
/// a file server reads it, and one whose path hides a dot segment in such a spelling (`..%2F`, `%5C..`, `..\`,
/// `..;x`) is refused outright. `%2F` in a name without a dot segment (`/bucket/a%2Fb.png`, as object stores
/// name keys) still passes; escapes are decoded once only, so `%252F` is the text `%2F` (as nginx reads it).
struct SourcePolicy: Sendable {
    /// The prefixes as configured (an empty list allows every http and https source).
    let allowedPrefixes: [String]
    /// Their normal forms, which are what URLs are compared with: as written, and as a file server reads them.
    private let normalisedPrefixes: [(text: String, serverReading: String)]
    /// The object stores whose `s3://` or `gs://` sources are fetched too (``checkObjectSource(_:store:)``).
    let objectStores: [ObjectStore]

    /// The folder whose `local://` sources are read too; `nil`: they are refused like any other scheme.
    let localFiles: LocalFileSource?

    init(allowedPrefixes: [String], objectStores: [ObjectStore] = [], localFiles: LocalFileSource? = nil) {
        self.allowedPrefixes = allowedPrefixes
        self.objectStores = objectStores
        self.localFiles = localFiles
        normalisedPrefixes = allowedPrefixes.map(Self.normalisedPrefix)
    }

    /// Why a URL is refused under the prefixes.
    enum Refusal: Equatable {
        /// Its normal form starts with no prefix, in one reading or the other.
        case outsidePrefixes
        /// Its path has a dot segment only some origins see (``SourceURLNormalisation/NormalForm/hidesDotSegment``).
        case hiddenDotSegment
    }

    /// The URL to fetch for `source`, or the 404 that refuses it (imgproxy does not tell a client why).
    func check(_ source: String) throws(ProxyError) -> URL {
        // Before parsing: a file's name may hold what a URL may not (a space, a `%`).
        if let url = try localFiles?.url(for: source, allowedPrefixes: allowedPrefixes) { return url }
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased() else {
            throw .invalidURL("the source \"\(source.prefix(80))\" is not an absolute URL")
        }
        if let store = objectStores.first(where: { $0.scheme == scheme }) {
            return try checkObjectSource(url, store: store)
        }
        guard scheme == "http" || scheme == "https" else {
            throw .sourceNotAllowed("only http and https sources are fetched, not \(scheme.prefix(16)):")
        }
        guard url.host?.isEmpty == false else {
            throw .invalidURL("the source \"\(source.prefix(80))\" has no host")
        }
        switch refusal(of: url) {
        case nil: return url
        case .outsidePrefixes: throw .sourceNotAllowed("the source is not under an allowed prefix")
        case .hiddenDotSegment:
            throw .sourceNotAllowed("the source's path hides a dot segment in an encoded slash or backslash")
        }
    }

    /// Whether `url` is allowed: always when no prefix is configured.
    func allows(_ url: URL) -> Bool {
        refusal(of: url) == nil
    }

    /// Why `url` is refused under the prefixes; `nil` when it is allowed (always when none is configured).
    func refusal(of url: URL) -> Refusal? {
        guard !normalisedPrefixes.isEmpty else { return nil }
        guard let form = SourceURLNormalisation.normalForm(url) else { return .outsidePrefixes }
        if form.hidesDotSegment { return .hiddenDotSegment }
        let text = form.text, serverReading = form.serverReading
        let inside = normalisedPrefixes.contains {
            text.hasPrefix($0.text) && serverReading.hasPrefix($0.serverReading)
        }
        return inside ? nil : .outsidePrefixes
    }

    /// The check the downloader runs before every hop, redirects included: a hop outside the allowed prefixes
    /// is refused before anything is sent to it. `nil` when no prefix is configured (nothing to check).
    var hopCheck: HTTPHopCheck? {
        guard !normalisedPrefixes.isEmpty else { return nil }
        let policy = self
        return { hop in
            switch policy.refusal(of: hop.url) {
            case nil: .allow
            case .outsidePrefixes: .refuse(hop.index == 0
                ? "the source is not under an allowed prefix"
                : "a redirect leads outside the allowed source prefixes")
            case .hiddenDotSegment: .refuse(hop.index == 0
                ? "the source's path hides a dot segment in an encoded slash or backslash"
                : "a redirect's path hides a dot segment in an encoded slash or backslash")
            }
        }
    }

    /// A prefix in normal form, in both readings. A prefix that is a whole URL is normalised like one (so
    /// `HTTP://Ok.Example` means `http://ok.example/`, which also keeps `http://ok.example.evil.test/` out);
    /// anything else is compared as written, with its scheme in lower case, in both readings.
    static func normalisedPrefix(_ prefix: String) -> (text: String, serverReading: String) {
        if let url = URL(string: prefix), let form = SourceURLNormalisation.normalForm(url) {
            return (form.text, form.serverReading)
        }
        return (prefix.lowercased(), prefix.lowercased())
    }
}
