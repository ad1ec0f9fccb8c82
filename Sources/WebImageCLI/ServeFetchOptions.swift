import ArgumentParser

/// `webimage serve`'s flags for fetching sources and the headers answers take from them (read by
/// ``ServeSettings/fetching(_:)``). `--allow-loopback-sources` stays with the command's own flags.
struct ServeFetchOptions: ParsableArguments {
    @Flag(name: .customLong("allow-private-sources"),
          help: "Let sources be on private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).")
    var allowPrivateSources = false
    @Flag(name: .customLong("allow-link-local-sources"),
          help: "Let sources be on link-local addresses (169.254/16, where cloud metadata answers, and fe80::/10).")
    var allowLinkLocalSources = false
    @Option(name: .customLong("user-agent"), help: ArgumentHelp(
        "The User-Agent sent to origins (default swift-web-image's own).", valueName: "TEXT"))
    var userAgent: String?
    @Option(name: .customLong("max-redirects"), help: ArgumentHelp(
        "Redirects a source download follows; one more is answered 404 (default 10; 0 follows none).",
        valueName: "N"))
    var maxRedirects: Int?
    @Flag(name: .customLong("cache-control-passthrough"),
          help: "Give answers the lifetime their origin gave the source (Cache-Control, else Expires), counted down, instead of --ttl.")
    var cacheControlPassthrough = false
    @Flag(name: .customLong("set-canonical-header"),
          help: "Send Link: <SOURCE>; rel=\"canonical\" with answers whose source is http or https.")
    var setCanonicalHeader = false
}
