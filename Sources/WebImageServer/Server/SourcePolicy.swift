import Foundation

/// Which source URLs a proxy fetches at all, before any connection: http and https only (so no request can make it
/// read a local file or a `data:` payload), and, when prefixes are configured, only URLs starting with one. The
/// addresses a URL resolves to are checked per hop by the downloader's address policy.
struct SourcePolicy: Sendable {
    var allowedPrefixes: [String]

    /// The URL to fetch for `source`, or the 403 that refuses it.
    func check(_ source: String) throws(ProxyError) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased() else {
            throw .badRequest("the source \"\(source.prefix(80))\" is not an absolute URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw .forbidden("only http and https sources are fetched, not \(scheme.prefix(16)):")
        }
        guard url.host?.isEmpty == false else {
            throw .badRequest("the source \"\(source.prefix(80))\" has no host")
        }
        if !allowedPrefixes.isEmpty, !allowedPrefixes.contains(where: { source.hasPrefix($0) }) {
            throw .forbidden("the source is not under an allowed prefix")
        }
        return url
    }
}
