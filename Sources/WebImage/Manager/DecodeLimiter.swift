/// Lets at most `width` decodes (or transforms) run at once; the rest wait in arrival order. CPU-bound work
/// beyond the number of cores only adds memory (every running decode holds its pixels) without finishing sooner.
final class DecodeLimiter: Sendable {
    private struct State {
        var running = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }

    private let width: Int
    private let state = Locked(State())

    init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `body` once a slot is free. A task cancelled while it waits leaves the line with
    /// ``ImageError/Code/cancelled`` and never runs `body`.
    func run<T: Sendable>(_ body: @Sendable () throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        if Task.isCancelled { throw ImageError(.cancelled, "cancelled before decoding") }
        return try body()
    }

    private func acquire() async throws {
        let id = state.withLock { state -> Int? in
            if state.running < width {
                state.running += 1
                return nil
            }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.waiting.append((id, continuation))
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: ImageError(.cancelled, "cancelled while waiting to decode"))
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(throwing: ImageError(.cancelled, "cancelled while waiting to decode"))
        }
    }

    /// Frees a slot, handing it straight to the first waiter (the running count stays the same then).
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
