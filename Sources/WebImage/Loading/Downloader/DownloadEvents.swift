import Synchronization
import Foundation

/// What happens to transfers, in order per transfer (SDWebImage's start / receive-response / stop / finish
/// notifications).
public enum DownloadEvent: Sendable, Equatable {
    /// A transfer left the queue and started.
    case started(URL)
    /// The response head arrived.
    case receivedResponse(URL, statusCode: Int)
    /// The transfer ended (finished, failed or cancelled).
    case stopped(URL)
    /// The transfer finished: `nil` on success, else the failure's code.
    case finished(URL, error: ImageError.Code?)
}

/// Hands each event to every open stream. Streams buffer the newest 1,000 events if their reader is slow.
final class DownloadEventBroadcaster: Sendable {
    private let continuations = Locked<[Int: AsyncStream<DownloadEvent>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    func makeStream() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DownloadEvent.self,
                                                             bufferingPolicy: .bufferingNewest(1000))
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { _ = $0.removeValue(forKey: id) }
        }
        continuations.withLock { $0[id] = continuation }
        return stream
    }

    func emit(_ event: DownloadEvent) {
        let targets = continuations.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(event) }
    }

    func finishAll() {
        let targets = continuations.withLock { state -> [AsyncStream<DownloadEvent>.Continuation] in
            defer { state.removeAll() }
            return Array(state.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
