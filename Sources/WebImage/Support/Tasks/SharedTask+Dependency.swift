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
        let waiter = SharedTaskWaiter<DependencyValue>()
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
