import Foundation
import WebImageProxyURL

/// One `/info` request, parsed and checked before anything is fetched: the source, what to tell about it, and the
/// key its answer is cached and shared under.
struct InfoRequest: Sendable {
    /// The source to describe (allowed by the source policy).
    let source: URL
    /// What to tell.
    let options: InfoOptions
    /// The answer's cache key: the source and every option that changes the answer. An image result's key never
    /// starts this way (it starts with the source URL).
    let key: String

    init(source: URL, options: InfoOptions) {
        self.source = source
        self.options = options
        key = "info\n\(source.absoluteString)\n\(options.cacheKey)"
    }
}
