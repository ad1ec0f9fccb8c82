import Synchronization

/// Hands each event to every open `AsyncStream`: the downloader's and the manager's event streams. A stream
/// buffers the newest 1,000 events when its reader is slow, so a stalled reader costs bounded memory and never
/// blocks the pipeline.
final class EventBroadcaster<Event: Sendable>: Sendable {
    private let continuations = Locked<[Int: AsyncStream<Event>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    init() {}

    /// A new stream that receives every event emitted from now on.
    func makeStream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1000))
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { _ = $0.removeValue(forKey: id) }
        }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    /// Whether any stream is open: lets emitters skip building events nobody reads.
    var hasListeners: Bool { continuations.withLock { !$0.isEmpty } }

    func emit(_ event: Event) {
        let targets = continuations.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(event) }
    }

    /// Ends every open stream.
    func finishAll() {
        let targets = continuations.withLock { state -> [AsyncStream<Event>.Continuation] in
            defer { state.removeAll() }
            return Array(state.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
