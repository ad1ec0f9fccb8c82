import Dispatch

/// Runs blocking file-system work on a few dedicated serial queues, so it never blocks the threads of Swift's
/// cooperative pool (only about one per core) and at most ``laneCount`` threads wait on the disk at once.
///
/// Work is spread over lanes by a caller-chosen number, usually a hash of the cache key: operations on one key
/// stay in the order they were submitted (a store followed by a query finds the stored entry, as with
/// SDWebImage's serial I/O queue), while different keys proceed in parallel.
package final class IOExecutor: Sendable {
    /// The executor the caches use unless given another: two lanes (this library's target machines have two or
    /// more cores, and a disk rarely gains from more readers than that).
    package static let shared = IOExecutor(lanes: 2)

    private let lanes: [DispatchQueue]

    /// Creates an executor with `lanes` serial queues (at least one).
    init(lanes: Int) {
        self.lanes = (0..<max(1, lanes)).map { DispatchQueue(label: "swift-web-image.io.\($0)", qos: .utility) }
    }

    /// The number of lanes: the most blocking calls in flight at once.
    var laneCount: Int { lanes.count }

    /// Runs `work` on the lane picked by `lane` and returns its result.
    package func run<T: Sendable>(lane: Int = 0, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue(lane).async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work`, which cannot fail, on the lane picked by `lane`.
    package func run<T: Sendable>(lane: Int = 0, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue(lane).async { continuation.resume(returning: work()) }
        }
    }

    private func queue(_ lane: Int) -> DispatchQueue {
        lanes[Int(UInt(bitPattern: lane) % UInt(lanes.count))]
    }
}
