import HeapModule

/// The transfers waiting for a slot, best first: higher priority, then FIFO or LIFO by arrival.
///
/// A priority change pushes a second entry rather than searching the heap; entries that no longer match their
/// transfer (started, cancelled, or re-prioritised) are skipped when they surface.
struct DownloadQueue {
    struct Entry: Comparable {
        let priority: DownloadPriority
        /// Larger runs first: `-sequence` for FIFO, `sequence` for LIFO.
        let order: Int
        let transferID: Int

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.priority, lhs.order) < (rhs.priority, rhs.order)
        }
    }

    let executionOrder: ImageDownloaderConfiguration.ExecutionOrder
    private var heap = Heap<Entry>()

    init(executionOrder: ImageDownloaderConfiguration.ExecutionOrder) {
        self.executionOrder = executionOrder
    }

    /// Adds (or re-adds with a new priority) a transfer that arrived as number `sequence`.
    mutating func push(_ transferID: Int, priority: DownloadPriority, sequence: Int) {
        let order = executionOrder == .fifo ? -sequence : sequence
        heap.insert(Entry(priority: priority, order: order, transferID: transferID))
    }

    /// Removes and returns the best entry for which `isCurrent` holds, dropping stale ones on the way.
    mutating func popBest(where isCurrent: (Entry) -> Bool) -> Int? {
        while let entry = heap.popMax() {
            if isCurrent(entry) { return entry.transferID }
        }
        return nil
    }

    /// Drops every entry.
    mutating func removeAll() {
        heap = Heap()
    }

    /// Entries held, stale ones included.
    var count: Int { heap.count }
}
