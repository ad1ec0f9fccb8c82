import Foundation

/// One image request, parsed and checked before anything is fetched: the source, what to make of it, and the
/// key its result is cached and coalesced under.
struct RenderRequest: Sendable {
    /// The source to fetch (http or https, allowed by the source policy).
    let source: URL
    /// The processing options, with the URL's extension applied.
    let options: ProcessingOptions
    /// The output format: the URL's, or the one negotiated from `Accept`; `nil` follows the source's (or, with
    /// ``bestFormats``, the smallest of them).
    let format: OutputFormat?
    /// `format:best`'s candidates, in order of preference; `nil` for any other request.
    let bestFormats: [OutputFormat]?
    /// The answer's `Vary` header: the request headers it depends on besides its URL (`Accept` when the format
    /// was negotiated, the client hints' when the server reads them); `nil` for none.
    let vary: String?
    /// The result's cache key: the source, the options that change the output, and the format.
    let key: String
    /// The answer's file name before its extension (`Content-Disposition`), worked out once: a route is kept
    /// and answers many requests.
    let fileStem: String
    /// The head of this route's answer to a memory hit, made once a second while the route is kept.
    let hitHead = HitHeadMemo()

    init(source: URL, options: ProcessingOptions, format: OutputFormat?, vary: String?, key: String,
         bestFormats: [OutputFormat]? = nil) {
        self.source = source
        self.options = options
        self.format = format
        self.bestFormats = bestFormats
        self.vary = vary
        self.key = key
        fileStem = ProxyResponder.fileStem(source: source, options: options)
    }
}
