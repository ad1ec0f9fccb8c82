/// A bound on concurrent renders (`--workers`) with a bounded line of waiting ones (`--queue`): past both, a
/// request is refused at once (429) rather than queued without end.
actor WorkQueue {
    private let workers: Int
    private let queueLimit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(workers: Int, queueLimit: Int) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
    }

    /// Requests waiting for a worker.
    var depth: Int { waiting.count }

    /// Runs `work` when a worker is free.
    /// - Throws: ``ProxyError`` 429 when every worker is busy and the line is full; whatever `work` throws.
    func run<Value: Sendable>(depthObserver: @Sendable (Int) -> Void = { _ in },
                              _ work: @Sendable () async throws -> Value) async throws -> Value {
        if running < workers {
            running += 1
        } else {
            guard waiting.count < queueLimit else {
                throw ProxyError(status: 429,
                                 "the server is busy: \(workers) renders running, \(waiting.count) waiting")
            }
            // The worker that finishes hands its slot over, so `running` stays as it is.
            await withCheckedContinuation {
                waiting.append($0)
                depthObserver(waiting.count)
            }
            depthObserver(waiting.count)
        }
        defer { release() }
        return try await work()
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
