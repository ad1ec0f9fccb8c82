import Foundation

extension ImageTask {
    typealias Listener = AsyncThrowingStream<ImageTaskEvent, any Error>.Continuation
    typealias Waiter = CheckedContinuation<ImageResult, any Error>

    /// A task's state, changed only under its lock: running (with the callers to tell) or finished (with the
    /// result alone). Each transition returns what the caller must do once the lock is released, since
    /// continuations and handlers must not run under it.
    struct StateMachine {
        /// Who waits for a running load, and the shared work it holds a place in.
        struct Running {
            var listeners: [Int: Listener] = [:]
            var nextListener = 0
            var waiters: [Waiter] = []
            var completion: ImageCompletion?
            var progress: ImageLoadProgressHandler?
            var subscription: SharedTaskSubscription?
            /// Replayed to a listener that arrives after it.
            var lastPreview: Image?
        }

        enum State {
            case running(Running)
            case finished(Result<ImageResult, ImageError>)
        }

        /// What to tell once a result is delivered: everyone who waited for it.
        struct Delivery {
            let listeners: [Listener]
            let waiters: [Waiter]
            let completion: ImageCompletion?
        }

        enum AddListenerAction {
            /// Added under `key`; replay `preview` to it when there is one.
            case added(key: Int, preview: Image?)
            /// Finished before: end the listener with the result.
            case finished(Result<ImageResult, ImageError>)
        }

        private(set) var state: State
        /// Kept in both states: a finished task still answers with the priority it was last given.
        private(set) var priority: ImagePriority

        init(priority: ImagePriority, completion: ImageCompletion?, progress: ImageLoadProgressHandler?) {
            state = .running(Running(completion: completion, progress: progress))
            self.priority = priority
        }

        var result: Result<ImageResult, ImageError>? {
            if case .finished(let result) = state { return result }
            return nil
        }

        /// Sets the priority; returns the subscription to pass it to when the load still runs and it changed.
        mutating func setPriority(_ newValue: ImagePriority) -> SharedTaskSubscription? {
            guard priority != newValue else { return nil }
            priority = newValue
            guard case .running(let running) = state else { return nil }
            return running.subscription
        }

        mutating func addListener(_ listener: Listener) -> AddListenerAction {
            switch state {
            case .running(var running):
                let key = running.nextListener
                running.nextListener += 1
                running.listeners[key] = listener
                state = .running(running)
                return .added(key: key, preview: running.lastPreview)
            case .finished(let result):
                return .finished(result)
            }
        }

        mutating func removeListener(_ key: Int) {
            guard case .running(var running) = state else { return }
            running.listeners.removeValue(forKey: key)
            state = .running(running)
        }

        /// Adds a waiter for the result; returns the result when it is here already (resume the waiter with it).
        mutating func addWaiter(_ waiter: Waiter) -> Result<ImageResult, ImageError>? {
            switch state {
            case .running(var running):
                running.waiters.append(waiter)
                state = .running(running)
                return nil
            case .finished(let result):
                return result
            }
        }

        /// Holds `subscription` while the load runs. Returns `true` when the caller must leave it at once: the
        /// task was cancelled before it had a place. A task finished otherwise has nothing left to hold.
        mutating func attach(_ subscription: SharedTaskSubscription) -> Bool {
            switch state {
            case .running(var running):
                running.subscription = subscription
                state = .running(running)
                return false
            case .finished(.failure(let error)):
                return error.code == .cancelled
            case .finished(.success):
                return false
            }
        }

        /// Who to tell of progress: the listeners and the progress handler, while the load runs.
        func progressTargets() -> (listeners: [Listener], handler: ImageLoadProgressHandler?) {
            guard case .running(let running) = state else { return ([], nil) }
            return (Array(running.listeners.values), running.progress)
        }

        /// Keeps `preview` for late listeners; returns the listeners to give it to while the load runs.
        mutating func preview(_ preview: Image) -> [Listener] {
            guard case .running(var running) = state else { return [] }
            running.lastPreview = preview
            state = .running(running)
            return Array(running.listeners.values)
        }

        /// Finishes with `result` and returns who to tell, with the subscription the load held; `nil` once
        /// finished (a result is delivered once).
        mutating func finish(_ result: Result<ImageResult, ImageError>)
            -> (delivery: Delivery, subscription: SharedTaskSubscription?)? {
            guard case .running(let running) = state else { return nil }
            state = .finished(result)
            let delivery = Delivery(listeners: Array(running.listeners.values), waiters: running.waiters,
                                    completion: running.completion)
            return (delivery, running.subscription)
        }
    }
}
