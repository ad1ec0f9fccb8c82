import WebImage
import Foundation
import Synchronization
import WebImageRedis

/// Makes the results the result cache does not have: one rendering per result however many requests wait for it
/// (a shared task per cache key), its source fetched without holding a CPU slot, decoded, rendered and encoded on
/// the CPU executor in a bounded line, and kept in memory (and Redis) before it is handed out. With Redis, a
/// result is rendered only by the proxy holding its lease; the others wait for it without holding anything.
///
/// A request that goes away (its client disconnected, or its time ran out) leaves the rendering: one that nobody
/// waits for any more stops its download and leaves the line, so it is never started; one already on a CPU slot
/// finishes and fills the cache for the next request.
final class RenderService: Sendable {
    /// The CPU executor renders run on; its slots are the `--workers`, its line the `--queue`.
    let cpu: CPUExecutor
    /// Where a render waits for a decode helper (its own threads, one slot per helper, the same line limit), when
    /// the coders isolate some formats: a helper's decode is a wait, and a render slot held through it would let
    /// a few slow hostile files (killed only at the helpers' timeout) stop every other render.
    let helperWaits: CPUExecutor?
    private let renders = TaskPool<String, RenderOutcome, Never>()
    let sourceLoader: SourceLoader
    let renderer: ProxyRenderer
    let results: ResultCache
    let metrics: ProxyMetrics
    let configuration: ProxyConfiguration
    private let started = Atomic(0)
    private let drawn = Atomic(0)
    private let memory = IdleMemoryRelease()
    /// Results that failed lately, answered again without a fetch or a render.
    let failures: RecentFailures
    /// What a source that cannot be fetched is answered with, once loaded (``ImageProxy/loadFallbackImage()``).
    let fallbackImage = FallbackImageStore()

    init(configuration: ProxyConfiguration, sourceLoader: SourceLoader, renderer: ProxyRenderer,
         results: ResultCache, metrics: ProxyMetrics, cpu: CPUExecutor) {
        self.configuration = configuration
        self.sourceLoader = sourceLoader
        self.renderer = renderer
        self.results = results
        self.metrics = metrics
        self.cpu = cpu
        failures = RecentFailures(lifetime: configuration.failureMemory)
        helperWaits = renderer.coders.coders.lazy.compactMap { $0 as? IsolatedCoder }.first.map {
            CPUExecutor(width: $0.pool.configuration.size, queueLimit: configuration.queueLimit,
                        label: "webimage.serve.helper-wait")
        }
    }

    /// Renderings started so far (coalesced requests start none).
    var renderingsStarted: Int { started.load(ordering: .relaxed) }
    /// Renderings that reached a CPU slot and decoded their source.
    var renderingsDrawn: Int { drawn.load(ordering: .relaxed) }
    /// Results being made now, each however many requests wait for it.
    var inFlight: Int { renders.count }

    /// The result of `request`, found in the result cache or made, once for every request waiting for it at the
    /// same time, with the tier it was found in (`nil`: made now).
    /// - Throws: ``ProxyError``: 504 once the request timeout passes (the request then leaves the rendering),
    ///   429 when the line of renders is full, or the status of what went wrong with the source; a
    ///   ``FallbackAnswer`` when the source cannot be fetched and a fallback image answers instead.
    func result(for request: RenderRequest) async throws -> (result: RenderedResult, tier: ResultCache.Tier?) {
        try await shared(forKey: request.key) { task in await self.attempt(request, in: task) }
    }

    /// The result under `key`, looked up in the result cache's tiers or else made by `make` (a render, or an
    /// `/info` description), once for every request waiting for it at the same time, its failure remembered for
    /// the next requests; with the tier it was found in (`nil`: made now).
    ///
    /// The lookup is the shared work's first step, so the requests of a burst for one result ask the disk and
    /// Redis once between them, and a request that reaches the pool just after the work that stored the result
    /// has left it starts new work that finds the result in memory instead of making it again.
    /// - Throws: ``ProxyError``: 504 once the request timeout passes (the request then leaves the work), or the
    ///   work's failure; a ``FallbackAnswer`` when a fallback image answers instead.
    func shared(forKey key: String,
                make: @escaping @Sendable (SharedTask<RenderOutcome, Never>) async -> RenderOutcome) async throws
        -> (result: RenderedResult, tier: ResultCache.Tier?)
    {
        if let failure = failures.failure(forKey: key) {
            metrics.answeredRememberedFailure()
            throw failure
        }
        let limit = configuration.requestTimeout
        // The work's steps go into the trace of the request that starts it (the pool's task is its own).
        let trace = RequestTrace.current
        let outcome = try await withThrowingTaskGroup(of: RenderOutcome?.self) { group in
            group.addTask {
                try await self.renders.value(forKey: key) { task in
                    await RequestTrace.$current.withValue(trace) {
                        if let found = await self.results.result(forKey: key) {
                            return .found(found.result, found.tier)
                        }
                        let outcome = await make(task)
                        // Kept even when every waiter has left: the next request for it is answered without
                        // this work.
                        if case .failed(let error) = outcome { self.failures.keep(error, forKey: key) }
                        return outcome
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        switch outcome {
        case .found(let result, let tier)?: return (result, tier)
        case .rendered(let result)?: return (result, nil)
        case .failed(let error)?: throw error
        case .fallback(let answer)?: throw answer
        case nil: throw ProxyError(status: 504, "the request took longer than \(limit)")
        }
    }

    private func attempt(_ request: RenderRequest, in task: SharedTask<RenderOutcome, Never>) async -> RenderOutcome {
        await outcome { try await self.renderOrFallback(request, in: task) }
    }

    /// What `work` ends with, its failure as the status it is answered with.
    func outcome(_ work: () async throws -> RenderOutcome) async -> RenderOutcome {
        do {
            return try await work()
        } catch let error as ProxyError {
            return .failed(error)
        } catch let error as ImageError {
            return .failed(ProxyError(imageError: error))
        } catch let full as SlotQueueFull {
            return .failed(ProxyError(status: 429, "the server is busy: \(full.running) renders running, "
                                                + "\(full.waiting) waiting"))
        } catch {
            return .failed(ProxyError(status: 500, "internal error: \(error)"))
        }
    }

    /// Renders `request`; with Redis, only while holding the result's lease, or not at all when another proxy
    /// stores the result while this one waits (the wait holds no slot).
    func renderInTurn(_ request: RenderRequest, in task: SharedTask<RenderOutcome, Never>) async throws
        -> RenderedResult
    {
        guard let shared = results.shared else { return try await render(request, in: task) }
        switch await shared.renderTurn(forKey: request.key, leaseTime: configuration.redisLeaseTime) {
        case .stored(let stored):
            if let result = results.adopt(stored, forKey: request.key) { return result }
            return try await render(request, in: task)
        case .render(let lease):
            let rendered: Result<RenderedResult, any Error>
            do { rendered = .success(try await render(request, in: task)) } catch { rendered = .failure(error) }
            await lease.release()  // stored by now (render stores before it returns), or failed: others may try
            return try rendered.get()
        case .renderWithoutLease:
            return try await render(request, in: task)
        }
    }

    private func render(_ request: RenderRequest, in task: SharedTask<RenderOutcome, Never>) async throws
        -> RenderedResult
    {
        started.add(1, ordering: .relaxed)
        let loadStarted = ContinuousClock.now
        let drawing = SourceDrawing(renderer: renderer, metrics: metrics, configuration: configuration)
        // No CPU slot is held while the source downloads: a slow origin delays only its own requests.
        let source = try await fetchingSource {
            try await sourceLoader.bytes(for: request.source, earlyStop: drawing.earlyStop(for: request))
        }
        metrics.sourceLoaded(after: ContinuousClock.now - loadStarted, from: source.origin, bytes: source.data.count)
        if let limit = request.options.limits.maximumSourceBytes, limit > 0, source.data.count > limit {
            throw SourceFetchFailure(underlying: ProxyError(
                status: 422, "the source has \(source.data.count) bytes, over this URL's limit of \(limit)"))
        }
        try refuseUnrecognisedSource(source.data)
        let (data, output) = try await draw(source.data, request: request, drawing: drawing, in: task)
        memory.renderEnded { [cpu] in cpu.slots.running == 0 && cpu.slots.waiting == 0 }
        // Only now: the bytes decoded (a render error after decoding is about the options, not the source).
        await sourceLoader.keep(source, for: request.source)
        let lastModified = source.lastModified ?? HTTPDate.string(secondsSince1970: Date().timeIntervalSince1970)
        let result = RenderedResult(data: data, format: output,
                                    etag: ResultTag.etag(key: request.key, sourceLastModified: source.lastModified,
                                                         body: data),
                                    lastModified: lastModified, sourceExpires: source.expires)
        await results.store(result, data: data, forKey: request.key)
        return result
    }

    /// `source` decoded and rendered within one budget of CPU time, which also stops the work once nobody waits
    /// for it (the render's task is cancelled when its last request leaves, at a 504 too).
    func draw(_ source: Data, request: RenderRequest, drawing: SourceDrawing,
              in task: SharedTask<RenderOutcome, Never>) async throws -> (Data, ImageFormat) {
        let queued = ContinuousClock.now
        // The render threads run no tasks: the trace is bound on them for the work they do for this render.
        let trace = RequestTrace.current
        return try await withinBudget { [self] budget in
            if let helperWaits, drawing.decodesInHelper(source) {
                // Decoded in a helper process while this render holds a place in the helpers' line, not a
                // CPU slot; the slot is taken for the rendering itself.
                let decoded = try await helperWaits.run(for: task) { [self] in
                    try RequestTrace.$current.withValue(trace) {
                        metrics.workStarted(after: ContinuousClock.now - queued)
                        drawn.add(1, ordering: .relaxed)
                        return try budget.run { try drawing.decode(source, request: request) }
                    }
                }
                return try await cpu.run(for: task) {
                    try RequestTrace.$current.withValue(trace) {
                        try budget.run { try drawing.render(decoded, request: request) }
                    }
                }
            }
            return try await cpu.run(for: task) { [self] in
                try RequestTrace.$current.withValue(trace) {
                    metrics.workStarted(after: ContinuousClock.now - queued)
                    drawn.add(1, ordering: .relaxed)
                    return try budget.run { try drawing.draw(source, request: request) }
                }
            }
        }
    }

    /// `work` given one budget of CPU time (``ProxyConfiguration/renderCPUBudget``), which also stops it once
    /// nobody waits for it (the work's task is cancelled when its last request leaves, at a 504 too).
    /// - Throws: ``ProxyError`` 422 when the budget ran out, 499 when nobody waits any more; else `work`'s error.
    func withinBudget<T: Sendable>(_ work: (WorkBudget) async throws -> T) async throws -> T {
        let budget = WorkBudget(cpuLimit: configuration.renderCPUBudget)
        do {
            return try await withTaskCancellationHandler {
                try await work(budget)
            } onCancel: {
                budget.cancel()
            }
        } catch {
            // Work cancelled while it waited in line was stopped by the line, not by its budget.
            guard let reason = budget.reason, budget.stoppedWork else { throw error }
            metrics.renderStopped(reason)
            switch reason {
            case .cpu: throw ProxyError(status: 422, "the render used more than its \(budget.cpuLimit) of CPU time")
            case .cancelled: throw ProxyError(status: 499, "the render was stopped: nobody waits for it")
            }
        }
    }
}

/// What one rendering ends with, failures included: a shared rendering's waiters all get the same answer.
enum RenderOutcome: Sendable {
    /// Made by an earlier rendering and found in this tier of the result cache.
    case found(RenderedResult, ResultCache.Tier)
    case rendered(RenderedResult)
    case failed(ProxyError)
    /// The source could not be fetched; the fallback image, rendered for the request, answers instead.
    case fallback(FallbackAnswer)
}
