import ArgumentParser

/// `webimage serve`'s flags for the fallback image, the answer to a request whose source cannot be fetched (read
/// by ``ServeSettings/fallbackImage(_:)``).
struct ServeFallbackImageOptions: ParsableArguments {
    @Option(name: .customLong("fallback-image"), help: ArgumentHelp(
        "An image answered, rendered with the request's options, when a source cannot be fetched (an origin's 404, a timeout, not an image): a file, or an http(s) URL downloaded at start-up.",
        valueName: "PATH|URL"))
    var fallbackImage: String?
    @Option(name: .customLong("fallback-image-status"), help: ArgumentHelp(
        "The status of fallback answers; 0 keeps the status the failure would have had (default 200).",
        valueName: "CODE"))
    var fallbackImageStatus: Int?
    @Option(name: .customLong("fallback-image-ttl"), help: ArgumentHelp(
        "Cache-Control max-age of fallback answers in seconds; 0 uses --ttl (default 0).", valueName: "SECONDS"))
    var fallbackImageTTL: Int?
}
