/// The continuation of one wait for a shared task, resumed exactly once: by the task's result or by cancellation
/// (which also leaves the task), whichever comes first.
final class SharedTaskWaiter<Value: Sendable>: Sendable {
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
