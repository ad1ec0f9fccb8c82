import Foundation

/// One caller's handle on a load (SDWebImage's `SDWebImageCombinedOperation`): its events, its result, and
/// ``cancel()``. Cancelling ends only this caller, with `ImageError.Code.cancelled`; work shared with other
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
    private let state: Locked<StateMachine>

    init(id: Int, url: URL?, priority: ImagePriority = .normal, completion: ImageCompletion? = nil,
         progress: ImageLoadProgressHandler? = nil) {
        self.id = id
        self.url = url
        state = Locked(StateMachine(priority: priority, completion: completion, progress: progress))
    }

    /// How urgent this load is. Changing it while the load runs moves the shared work (and its download, while
    /// it waits for a slot) to the highest priority among the loads that share it.
    public var priority: ImagePriority {
        get { state.withLock { $0.priority } }
        set {
            let subscription = state.withLock { $0.setPriority(newValue) }
            subscription?.setPriority(newValue)
        }
    }

    /// Events from now on: progress, previews (the latest one is replayed to a late reader), and
    /// ``ImageTaskEvent/finished(_:)``, after which the stream ends. A failure ends the stream by throwing the
    /// `ImageError`. Each read of this property makes a new stream.
    public var events: AsyncThrowingStream<ImageTaskEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ImageTaskEvent.self)
        let action = state.withLock { state -> StateMachine.AddListenerAction in
            let action = state.addListener(continuation)
            if case .added(let key, _) = action {
                continuation.onTermination = { [weak self] _ in
                    self?.state.withLock { $0.removeListener(key) }
                }
            }
            return action
        }
        switch action {
        case .added(_, let preview):
            if let preview { continuation.yield(.preview(preview)) }
        case .finished(let result):
            Self.end(continuation, with: result)
        }
        return stream
    }

    /// The result; waits for it. Cancelling the waiting task does not cancel the load (call ``cancel()``).
    public var result: ImageResult {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let finished = state.withLock { $0.addWaiter(continuation) }
                if let finished { continuation.resume(with: finished.mapError { $0 as any Error }) }
            }
        }
    }

    /// Whether the task has its result (success, failure or cancellation).
    public var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Ends this caller's load with `ImageError.Code.cancelled`. Does nothing once it has finished.
    public func cancel() {
        let result = Result<ImageResult, ImageError>.failure(
            ImageError(.cancelled, "the load of \(url?.absoluteString ?? "nil") was cancelled"))
        guard let taken = state.withLock({ $0.finish(result) }) else { return }
        Self.deliver(result, to: taken.delivery)
        taken.subscription?.cancel()
    }

    // MARK: Driven by the manager

    /// Holds this caller's place in the shared work: cancelling leaves it, a priority change goes to it. Leaves
    /// at once if the task was cancelled already.
    func attach(_ subscription: SharedTaskSubscription) {
        let leaveNow = state.withLock { $0.attach(subscription) }
        if leaveNow { subscription.cancel() }
    }

    func report(_ progress: ImageLoadProgress) {
        let (listeners, handler) = state.withLock { $0.progressTargets() }
        handler?(progress)
        let event = ImageTaskEvent.progress(received: progress.receivedBytes, expected: progress.expectedBytes)
        for listener in listeners { listener.yield(event) }
    }

    func report(preview: Image) {
        let listeners = state.withLock { $0.preview(preview) }
        for listener in listeners { listener.yield(.preview(preview)) }
    }

    /// Delivers the result once; later calls do nothing. Returns whether this call delivered it.
    @discardableResult
    func finish(_ result: Result<ImageResult, ImageError>) -> Bool {
        guard let taken = state.withLock({ $0.finish(result) }) else { return false }
        Self.deliver(result, to: taken.delivery)
        return true
    }

    private static func deliver(_ result: Result<ImageResult, ImageError>, to delivery: StateMachine.Delivery) {
        for listener in delivery.listeners { end(listener, with: result) }
        for waiter in delivery.waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
        delivery.completion?(result)
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
