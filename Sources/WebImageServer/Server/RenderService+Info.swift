import WebImage
import Foundation

extension RenderService {
    /// The `/info` answer for `request`, as JSON, made once for every request waiting for it at the same time and
    /// kept in the result cache under its own key: its source fetched as a render's is (a JPEG only up to its
    /// header when nothing asked for needs more), described on the CPU executor within a render's budget.
    /// - Throws: ``ProxyError`` as a render does: 504, 429, or the status of what went wrong with the source.
    func info(for request: InfoRequest) async throws -> (result: RenderedResult, tier: ResultCache.Tier?) {
        try await shared(forKey: request.key) { task in
            await self.outcome { .rendered(try await self.describe(request, in: task)) }
        }
    }

    private func describe(_ request: InfoRequest, in task: SharedTask<RenderOutcome, Never>) async throws
        -> RenderedResult
    {
        let options = request.options
        let name = request.source.lastPathComponent
        let description = SourceDescription(
            options: options, coders: renderer.coders,
            limits: DecodeLimits(maxPixels: options.limits.maximumSourcePixels ?? configuration.maximumSourcePixels,
                                 maxTotalPixels: configuration.maximumAnimationPixels))
        // The download stops where the answer is served: a JPEG's header, or what the reduced decode reads.
        let earlyStop: EarlyStop? = options.readsHeaderOnly ? .header
            : options.readsReducedDecodeOnly ? EarlyStop(decoding: description.reducedDecode(page: 0, sourceName: name))
            : nil
        let loadStarted = ContinuousClock.now
        var source = try await sourceLoader.bytes(for: request.source, earlyStop: earlyStop)
        // A start of the file whose origin did not say how long the file is cannot answer `size`: the whole can.
        if source.isPrefix, options.size, source.totalBytes == nil {
            source = try await sourceLoader.bytes(for: request.source)
        }
        metrics.sourceLoaded(after: ContinuousClock.now - loadStarted, from: source.origin, bytes: source.data.count)
        let totalBytes = source.totalBytes ?? source.data.count
        if let limit = options.limits.maximumSourceBytes, limit > 0, totalBytes > limit {
            throw ProxyError(status: 422, "the source has \(totalBytes) bytes, over this URL's limit of \(limit)")
        }
        let queued = ContinuousClock.now
        let trace = RequestTrace.current
        let data = source.data
        let fields = try await withinBudget { [metrics, cpu] budget in
            try await cpu.run(for: task) {
                try RequestTrace.$current.withValue(trace) {
                    metrics.workStarted(after: ContinuousClock.now - queued)
                    return try budget.run { try description.fields(of: data, totalBytes: totalBytes, sourceName: name) }
                }
            }
        }
        // Only a source whose pixels decoded is kept, as a render keeps one; a header read for its description
        // proves nothing about the rest, and a start of the file is never kept (it serves no other decode).
        if !source.isPrefix, options.needsPixels { await sourceLoader.keep(source, for: request.source) }
        let body = Data(JSONValue.object(fields).text.utf8)
        let result = RenderedResult(
            data: body, format: .unknown,
            etag: ResultTag.etag(key: request.key, sourceLastModified: source.lastModified, body: body),
            lastModified: source.lastModified ?? HTTPDate.string(secondsSince1970: Date().timeIntervalSince1970),
            sourceExpires: source.expires)
        await results.store(result, data: body, forKey: request.key)
        return result
    }
}
