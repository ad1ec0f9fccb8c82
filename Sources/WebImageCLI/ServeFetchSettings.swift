import WebImage
import WebImageServer

extension ServeSettings {
    /// How sources are fetched and what answers take from them: the three source address switches, as imgproxy's
    /// (`--allow-loopback-sources`, `--allow-private-sources`, `--allow-link-local-sources`, each off by default:
    /// imgproxy allows private addresses unless told not to), `--user-agent` (`IMGPROXY_USER_AGENT`, whose
    /// `%current_version` names this server's), `--max-redirects` (`IMGPROXY_MAX_REDIRECTS`),
    /// `--cache-control-passthrough` and `--set-canonical-header`.
    func fetching(_ configuration: inout ProxyConfiguration) throws {
        let options = command.fetchOptions
        configuration.allowsLoopbackSources = try source.switchOn(
            command.allowLoopbackSources, "ALLOW_LOOPBACK_SOURCES",
            imgproxy: ["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"])
        configuration.allowsPrivateSources = try source.switchOn(
            options.allowPrivateSources, "ALLOW_PRIVATE_SOURCES", imgproxy: ["IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES"])
        configuration.allowsLinkLocalSources = try source.switchOn(
            options.allowLinkLocalSources, "ALLOW_LINK_LOCAL_SOURCES",
            imgproxy: ["IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES"])
        if let agent = source.text(options.userAgent, flag: "--user-agent", "USER_AGENT",
                                   imgproxy: ["IMGPROXY_USER_AGENT"]),
           !agent.text.isEmpty {
            try Self.checkHeaderValue(agent)  // a line break would start another header of the origin request
            configuration.userAgent = agent.isImgproxy
                ? agent.text.replacingOccurrences(of: "%current_version", with: Self.version)
                : agent.text
        }
        if let redirects = try source.wholeNumber(options.maxRedirects, flag: "--max-redirects", "MAX_REDIRECTS",
                                                  imgproxy: ["IMGPROXY_MAX_REDIRECTS"], minimum: 0) {
            configuration.maximumRedirects = redirects
        }
        configuration.passesSourceCacheControl = try source.switchOn(
            options.cacheControlPassthrough, "CACHE_CONTROL_PASSTHROUGH",
            imgproxy: ["IMGPROXY_CACHE_CONTROL_PASSTHROUGH"])
        configuration.setsCanonicalHeader = try source.switchOn(
            options.setCanonicalHeader, "SET_CANONICAL_HEADER", imgproxy: ["IMGPROXY_SET_CANONICAL_HEADER"])
    }

    /// What imgproxy's `%current_version` becomes: this package's version, as in the library's own `User-Agent`.
    static var version: String { LibraryVersion.current }
}
