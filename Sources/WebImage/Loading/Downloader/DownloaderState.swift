import Foundation

/// What makes two requests "the same download": everything that can change the response or its validation.
/// Per-caller things (progress, partial data, response modifier, decryptor, priority) are not part of it.
/// The hash is computed once: the key is hashed on every call and again whenever the table grows.
struct TransferKey: Hashable {
    private let precomputedHash: Int
    let url: String
    /// The headers in canonical form (computed once: hashing is on every join).
    let headers: [String]
    let credentials: BasicCredentials?
    let handlesCookies: Bool
    let allowsInvalidCertificates: Bool
    let acceptableStatusCodes: IndexSet
    let acceptableContentTypes: Set<String>?
    let maximumBodySize: Int
    let maximumRedirects: Int
    let retries: Bool

    init(_ request: ImageLoadRequest, retries: Bool) {
        url = request.url.absoluteString
        headers = request.headers.canonical
        credentials = request.credentials
        handlesCookies = request.handlesCookies
        allowsInvalidCertificates = request.allowsInvalidCertificates
        acceptableStatusCodes = request.acceptableStatusCodes
        acceptableContentTypes = request.acceptableContentTypes
        maximumBodySize = request.maximumBodySize
        maximumRedirects = request.maximumRedirects
        self.retries = retries
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(credentials)
        hasher.combine(handlesCookies)
        hasher.combine(allowsInvalidCertificates)
        hasher.combine(acceptableStatusCodes)
        hasher.combine(acceptableContentTypes)
        hasher.combine(maximumBodySize)
        hasher.combine(maximumRedirects)
        hasher.combine(retries)
        precomputedHash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(precomputedHash)
    }
}

/// One shared transfer and the callers waiting for it.
struct TransferState {
    enum Phase {
        /// Waiting for a slot; `sequence` is its arrival number.
        case queued(sequence: Int)
        /// Holding a slot until its task ends (even after every caller left).
        case running(Task<Void, Never>)
    }

    let id: Int
    let key: TransferKey
    let request: ImageLoadRequest
    let loader: any ImageLoader
    let retries: Bool
    private(set) var subscribers: [Int: DownloadSubscriber] = [:]
    var phase: Phase
    /// The highest priority among the subscribers (kept when the last one leaves).
    private(set) var priority: DownloadPriority
    /// Subscribers per priority, so joining and leaving cost O(1) however many callers share the transfer.
    private var priorityCounts = [0, 0, 0]

    init(id: Int, key: TransferKey, request: ImageLoadRequest, loader: any ImageLoader, retries: Bool,
         phase: Phase) {
        self.id = id
        self.key = key
        self.request = request
        self.loader = loader
        self.retries = retries
        self.phase = phase
        priority = request.priority
    }

    var isQueued: Bool {
        if case .queued = phase { return true }
        return false
    }

    /// Adds a caller; returns whether the transfer's priority changed.
    mutating func add(_ subscriber: DownloadSubscriber) -> Bool {
        subscribers[subscriber.id] = subscriber
        priorityCounts[subscriber.priority.rawValue] += 1
        return refreshPriority()
    }

    /// Removes a caller; returns it (or `nil` if it was not here) and whether the priority changed.
    mutating func remove(_ subscriberID: Int) -> (subscriber: DownloadSubscriber?, priorityChanged: Bool) {
        guard let subscriber = subscribers.removeValue(forKey: subscriberID) else { return (nil, false) }
        priorityCounts[subscriber.priority.rawValue] -= 1
        return (subscriber, refreshPriority())
    }

    /// Drops every caller and returns them.
    mutating func removeAllSubscribers() -> [DownloadSubscriber] {
        defer {
            subscribers.removeAll()
            priorityCounts = [0, 0, 0]
        }
        return Array(subscribers.values)
    }

    private mutating func refreshPriority() -> Bool {
        guard let highest = DownloadPriority.allCases.last(where: { priorityCounts[$0.rawValue] > 0 }),
              highest != priority else { return false }
        priority = highest
        return true
    }
}

/// Everything the downloader's lock guards.
struct DownloaderState {
    var maxConcurrent: Int
    var running = 0
    var transfers: [Int: TransferState] = [:]
    var byKey: [TransferKey: Int] = [:]
    var queue: DownloadQueue
    var nextTransferID = 0
    var nextSubscriberID = 0
    var nextSequence = 0

    init(maxConcurrent: Int, executionOrder: ImageDownloaderConfiguration.ExecutionOrder) {
        self.maxConcurrent = maxConcurrent
        queue = DownloadQueue(executionOrder: executionOrder)
    }

    var queuedCount: Int { transfers.values.filter(\.isQueued).count }

    mutating func makeSubscriberID() -> Int {
        defer { nextSubscriberID += 1 }
        return nextSubscriberID
    }

    /// Pops the best queued transfer that may start now, skipping stale queue entries.
    mutating func popStartable() -> Int? {
        guard running < maxConcurrent else { return nil }
        let transfers = self.transfers
        return queue.popBest { entry in
            guard let transfer = transfers[entry.transferID], transfer.isQueued else { return false }
            return transfer.priority == entry.priority
        }
    }

    /// Takes every subscriber out and forgets queued transfers; running ones stay (with no subscribers) until their
    /// tasks end, so the slot count stays true. Returns the subscribers and the tasks to cancel.
    mutating func removeAll() -> ([DownloadSubscriber], [Task<Void, Never>]) {
        var subscribers: [DownloadSubscriber] = []
        var tasks: [Task<Void, Never>] = []
        for (id, transfer) in transfers {
            subscribers.append(contentsOf: transfer.subscribers.values)
            switch transfer.phase {
            case .queued:
                transfers[id] = nil
            case .running(let task):
                tasks.append(task)
                _ = transfers[id]?.removeAllSubscribers()
            }
        }
        byKey.removeAll()
        queue.removeAll()
        return (subscribers, tasks)
    }
}
