extension SharedTask {
    /// Waits for a task of another stage that this one depends on (the decode waits for the data, the final
    /// image for the decode). The dependency is joined at this task's priority and follows it up and down; its
    /// updates go to `onUpdate`; when this task is cancelled it leaves the dependency, which stops when nobody
    /// else waits for it.
    func dependency<DependencyKey, DependencyValue, DependencyUpdate>(
        on pool: TaskPool<DependencyKey, DependencyValue, DependencyUpdate>, key: DependencyKey?,
        onUpdate: @escaping @Sendable (DependencyUpdate) -> Void = { _ in },
        work: @escaping SharedTask<DependencyValue, DependencyUpdate>.Work
    ) async throws -> DependencyValue {
        let waiter = DependencyWaiter<DependencyValue>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DependencyValue, any Error>) in
                waiter.wait(with: continuation)
                let (subscription, _) = pool.subscribe(key, priority: priority, onUpdate: onUpdate,
                                                       onCompletion: { waiter.resume(with: $0) }, work: work)
                // Observers may run out of order on different threads: each passes on the priority as it is now,
                // and the one read after registering covers a change made while subscribing.
                observePriority { [weak self] _ in
                    if let self { subscription.setPriority(priority) }
                }
                subscription.setPriority(priority)
                waiter.attach(subscription)
            }
        } onCancel: {
            waiter.resume(with: .failure(ImageError(.cancelled, "the load was cancelled")))
        }
    }
}

/// The continuation of one dependency wait, resumed exactly once: by the dependency's result or by cancellation
/// (which also leaves the dependency), whichever comes first.
private final class DependencyWaiter<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var subscription: SharedTaskSubscription?
        var outcome: Result<Value, ImageError>?
    }

    private let state = Locked(State())

    func wait(with continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, ImageError>? in
            guard let outcome = state.outcome else {
                state.continuation = continuation
                return nil
            }
            return outcome
        }
        if let early { continuation.resume(with: early.mapError { $0 as any Error }) }
    }

    func attach(_ subscription: SharedTaskSubscription) {
        let leave = state.withLock { state -> Bool in
            state.subscription = subscription
            if case .failure(let error) = state.outcome, error.code == .cancelled { return true }
            return false
        }
        if leave { subscription.cancel() }
    }

    func resume(with result: Result<Value, ImageError>) {
        let (continuation, subscription) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, SharedTaskSubscription?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = result
            defer { state.continuation = nil }
            return (state.continuation, state.subscription)
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
        if case .failure(let error) = result, error.code == .cancelled { subscription?.cancel() }
    }
}
