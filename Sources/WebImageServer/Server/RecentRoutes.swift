import WebImage
import Foundation

/// Image routes read lately, by what they were read from: a hot URL's path is parsed, its signature verified and
/// its source checked once, not on every request (on a memory hit that reading was a fifth of the server's CPU).
///
/// A route depends on the path alone, and on the `Accept` header and the client hints only when the server reads
/// them, so those are part of the key only then. Nothing else a request carries changes it, and the server's
/// settings do not change while it runs. A URL with `expires` is checked against the clock on every hit, and a
/// refused request is never kept: it is read (and refused) again each time.
final class RecentRoutes: Sendable {
    private struct Key: Hashable, Sendable {
        let path: String
        let accept: String?
        let hints: ClientHints
    }

    private let routes: MemoryCache<Key, RenderRequest>
    private let configuration: ProxyConfiguration

    /// Routes for `configuration`'s server, at most `count` of them and `bytes` of their paths and headers.
    init(configuration: ProxyConfiguration, count: Int = 4096, bytes: Int = 4 << 20) {
        self.configuration = configuration
        routes = MemoryCache(limits: .init(costLimit: bytes, countLimit: count))
    }

    /// The route kept for `request`, when it is still valid.
    func recent(for request: ProxyRequest) -> RenderRequest? {
        guard let recent = routes.value(forKey: key(request)), !Self.hasExpired(recent) else { return nil }
        return recent
    }

    /// Keeps `route`, read from `request`, for the next requests like it.
    func keep(_ route: RenderRequest, for request: ProxyRequest) {
        let key = key(request)
        routes.setValue(route, forKey: key, cost: key.path.utf8.count + (key.accept?.utf8.count ?? 0))
    }

    private func key(_ request: ProxyRequest) -> Key {
        Key(path: request.path,
            accept: configuration.negotiation.dependsOnAccept ? request.accept : nil,
            hints: configuration.readsClientHints ? request.clientHints : ClientHints())
    }

    /// Forgets every route: their keys were made under a setting that changed (the watermark, loaded after start).
    func removeAll() {
        routes.removeAll()
    }

    /// How many routes are kept now.
    var count: Int { routes.count }

    private static func hasExpired(_ route: RenderRequest) -> Bool {
        guard let expires = route.options.expires else { return false }
        return Double(expires) < Date().timeIntervalSince1970
    }
}
