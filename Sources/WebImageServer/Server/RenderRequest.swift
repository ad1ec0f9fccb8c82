import Foundation

/// One image request, parsed and checked before anything is fetched: the source, what to make of it, and the
/// key its result is cached and coalesced under.
struct RenderRequest: Sendable {
    /// The source to fetch (http or https, allowed by the source policy).
    let source: URL
    /// The processing options, with the URL's extension applied.
    let options: ProcessingOptions
    /// The output format: the URL's, or the one negotiated from `Accept`; `nil` follows the source's.
    let format: OutputFormat?
    /// Whether the answer depends on `Accept` (it then says `Vary: Accept`).
    let varies: Bool
    /// The result's cache key: the source, the options that change the output, and the format.
    let key: String
}
