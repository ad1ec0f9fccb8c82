import Foundation

/// One caller's handle on a load (SDWebImage's `SDWebImageCombinedOperation`): its events, its result, and
/// ``cancel()``. Cancelling ends only this caller, with ``ImageError/Code/cancelled``; work shared with other
/// callers of the same image goes on until its last caller leaves.
///
/// ```swift
/// let task = manager.imageTask(from: url, options: [.progressiveLoad])
/// for try await event in task.events {
///     switch event {
///     case .progress(let received, let expected): …
///     case .preview(let partial): …
///     case .finished(let result): …
///     }
/// }
/// ```
public final class ImageTask: Sendable, Hashable {
    /// The URL asked for; `nil` when the caller passed none.
    public let url: URL?
    private let id: Int
    private let state: Locked<State>

    private struct State {
        var result: Result<ImageResult, ImageError>?
        var listeners: [Int: AsyncThrowingStream<ImageTaskEvent, any Error>.Continuation] = [:]
        var nextListener = 0
        var waiters: [CheckedContinuation<ImageResult, any Error>] = []
        var completion: ImageCompletion?
        var progress: ImageLoadProgressHandler?
        var subscription: SharedTaskSubscription?
        var lastPreview: Image?
        var priority: ImagePriority
    }

    init(id: Int, url: URL?, priority: ImagePriority = .normal, completion: ImageCompletion? = nil,
         progress: ImageLoadProgressHandler? = nil) {
        self.id = id
        self.url = url
        state = Locked(State(priority: priority))
        state.withLock {
            $0.completion = completion
            $0.progress = progress
        }
    }

    /// How urgent this load is. Changing it while the load runs moves the shared work (and its download, while
    /// it waits for a slot) to the highest priority among the loads that share it.
    public var priority: ImagePriority {
        get { state.withLock { $0.priority } }
        set {
            let subscription = state.withLock { state -> SharedTaskSubscription? in
                guard state.priority != newValue else { return nil }
                state.priority = newValue
                return state.result == nil ? state.subscription : nil
            }
            subscription?.setPriority(newValue)
        }
    }

    /// Events from now on: progress, previews (the latest one is replayed to a late reader), and
    /// ``ImageTaskEvent/finished(_:)``, after which the stream ends. A failure ends the stream by throwing the
    /// ``ImageError``. Each read of this property makes a new stream.
    public var events: AsyncThrowingStream<ImageTaskEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ImageTaskEvent.self)
        let (finished, preview) = state.withLock { state -> (Result<ImageResult, ImageError>?, Image?) in
            if state.result == nil {
                let key = state.nextListener
                state.nextListener += 1
                state.listeners[key] = continuation
                continuation.onTermination = { [weak self] _ in
                    self?.state.withLock { _ = $0.listeners.removeValue(forKey: key) }
                }
            }
            return (state.result, state.lastPreview)
        }
        if let preview, finished == nil { continuation.yield(.preview(preview)) }
        if let finished { Self.end(continuation, with: finished) }
        return stream
    }

    /// The result; waits for it. Cancelling the waiting task does not cancel the load (call ``cancel()``).
    public var result: ImageResult {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let finished = state.withLock { state -> Result<ImageResult, ImageError>? in
                    if state.result == nil { state.waiters.append(continuation) }
                    return state.result
                }
                if let finished { continuation.resume(with: finished.mapError { $0 as any Error }) }
            }
        }
    }

    /// Whether the task has its result (success, failure or cancellation).
    public var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Ends this caller's load with ``ImageError/Code/cancelled``. Does nothing once it has finished.
    public func cancel() {
        let (cancelled, subscription) = state.withLock { state -> (Bool, SharedTaskSubscription?) in
            (state.result == nil, state.subscription)
        }
        guard cancelled else { return }
        finish(.failure(ImageError(.cancelled, "the load of \(url?.absoluteString ?? "nil") was cancelled")))
        subscription?.cancel()
    }

    // MARK: Driven by the manager

    /// Holds this caller's place in the shared work: cancelling leaves it, a priority change goes to it. Leaves
    /// at once if the task was cancelled already.
    func attach(_ subscription: SharedTaskSubscription) {
        let leaveNow = state.withLock { state -> Bool in
            if case .failure(let error)? = state.result, error.code == .cancelled { return true }
            state.subscription = subscription
            return false
        }
        if leaveNow { subscription.cancel() }
    }

    func report(_ progress: ImageLoadProgress) {
        let (listeners, handler) = state.withLock { state in
            (state.result == nil ? Array(state.listeners.values) : [], state.result == nil ? state.progress : nil)
        }
        handler?(progress)
        let event = ImageTaskEvent.progress(received: progress.receivedBytes, expected: progress.expectedBytes)
        for listener in listeners { listener.yield(event) }
    }

    func report(preview: Image) {
        let listeners = state.withLock { state -> [AsyncThrowingStream<ImageTaskEvent, any Error>.Continuation] in
            guard state.result == nil else { return [] }
            state.lastPreview = preview
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.yield(.preview(preview)) }
    }

    /// Delivers the result once; later calls do nothing. Returns whether this call delivered it.
    @discardableResult
    func finish(_ result: Result<ImageResult, ImageError>) -> Bool {
        let taken = state.withLock { state -> State? in
            guard state.result == nil else { return nil }
            state.result = result
            let taken = state
            state.listeners = [:]
            state.waiters = []
            state.completion = nil
            state.progress = nil
            state.subscription = nil
            state.lastPreview = nil
            return taken
        }
        guard let taken else { return false }
        for listener in taken.listeners.values { Self.end(listener, with: result) }
        for waiter in taken.waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
        taken.completion?(result)
        return true
    }

    private static func end(_ continuation: AsyncThrowingStream<ImageTaskEvent, any Error>.Continuation,
                            with result: Result<ImageResult, ImageError>) {
        switch result {
        case .success(let value):
            continuation.yield(.finished(value))
            continuation.finish()
        case .failure(let error):
            continuation.finish(throwing: error)
        }
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
