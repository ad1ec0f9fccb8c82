/// Requests for the same result while it is being made wait for that one rendering instead of starting their own:
/// 1 000 concurrent requests for one uncached URL cost one render (the downloader below coalesces the fetch).
actor RenderCoalescer {
    private var running: [String: Task<RenderedResult, any Error>] = [:]

    /// The result for `key`: the running rendering's, or a new one made by `make`. The rendering is not cancelled
    /// when a waiting request goes away: its result fills the cache for the next.
    func result(forKey key: String, make: @escaping @Sendable () async throws -> RenderedResult) async throws
        -> RenderedResult
    {
        if let task = running[key] { return try await task.value }
        let task = Task { try await make() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}
