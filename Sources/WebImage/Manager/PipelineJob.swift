import Foundation

/// One run of the pipeline (query, load, decode, transform, store) and the callers waiting for it. Equal loads
/// join a running job instead of starting their own, so N callers cost one download, one decode and one
/// transform. Callers are counted: when the last one cancels, the job's task is cancelled and nothing more is
/// written to a cache.
final class PipelineJob: Sendable {
    /// What to load and how.
    let plan: LoadPlan
    private let state = Locked(State())

    private struct State {
        var subscribers: [ObjectIdentifier: ImageTask] = [:]
        var task: Task<Void, Never>?
        var finished = false
        var priority: DownloadPriority = .low
        /// Set while the download runs: joins the transfer again at a higher priority.
        var booster: (@Sendable (DownloadPriority) -> DownloadToken?)?
        var boostTokens: [DownloadToken] = []
    }

    init(plan: LoadPlan) {
        self.plan = plan
    }

    /// Adds a caller; `false` when the job has already finished or lost all its callers (start a new one).
    /// A caller with a higher priority raises the download's priority.
    func add(_ task: ImageTask, priority: DownloadPriority) -> Bool {
        var booster: (@Sendable (DownloadPriority) -> DownloadToken?)?
        let joined = state.withLock { state -> Bool in
            // A job whose callers all left is being cancelled: it must not be joined.
            guard !state.finished, state.task == nil || !state.subscribers.isEmpty else { return false }
            state.subscribers[ObjectIdentifier(task)] = task
            if priority > state.priority {
                state.priority = priority
                booster = state.booster
            }
            return true
        }
        if joined, let booster, let token = booster(priority) {
            let late = state.withLock { state -> Bool in
                if !state.finished { state.boostTokens.append(token) }
                return state.finished
            }
            if late { token.cancel() }
        }
        return joined
    }

    /// Removes a caller; returns `true` when it was the last one (the caller then cancels the job).
    func remove(_ task: ImageTask) -> Bool {
        state.withLock { state in
            guard state.subscribers.removeValue(forKey: ObjectIdentifier(task)) != nil else { return false }
            return state.subscribers.isEmpty && !state.finished
        }
    }

    /// Starts the work (once).
    func start(_ work: @escaping @Sendable () async -> Void) {
        let task = Task(operation: work)
        state.withLock { $0.task = task }
    }

    /// Cancels the work.
    func cancel() {
        let (task, tokens) = state.withLock { state in (state.task, state.boostTokens) }
        task?.cancel()
        for token in tokens { token.cancel() }
    }

    /// The highest priority among the callers so far.
    var priority: DownloadPriority { state.withLock { $0.priority } }

    /// While the download runs, `booster` can join it again at a higher priority.
    func setBooster(_ booster: (@Sendable (DownloadPriority) -> DownloadToken?)?) {
        let tokens = state.withLock { state -> [DownloadToken] in
            state.booster = booster
            guard booster == nil else { return [] }
            defer { state.boostTokens = [] }
            return state.boostTokens
        }
        for token in tokens { token.cancel() }
    }

    private var subscribers: [ImageTask] { state.withLock { Array($0.subscribers.values) } }

    func report(_ progress: ImageLoadProgress) {
        for task in subscribers { task.report(progress) }
    }

    func report(preview: Image) {
        for task in subscribers { task.report(preview: preview) }
    }

    /// Delivers `result` to every caller still here and closes the job to newcomers.
    func finish(_ result: Result<ImageResult, ImageError>) {
        let (tasks, tokens) = state.withLock { state -> ([ImageTask], [DownloadToken]) in
            state.finished = true
            state.booster = nil
            defer {
                state.subscribers = [:]
                state.boostTokens = []
            }
            return (Array(state.subscribers.values), state.boostTokens)
        }
        for token in tokens { token.cancel() }
        for task in tasks { task.finish(result) }
    }
}
