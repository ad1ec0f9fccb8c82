import Foundation

/// Warms the cache with a list of URLs (SDWebImagePrefetcher's role): at most
/// ``maxConcurrentPrefetchCount`` loads at a time, low priority by default, progress as they finish.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(manager: .shared)
/// let report = await prefetcher.prefetch(urls) { finished, total in print("\(finished)/\(total)") }
/// ```
///
/// Each call to ``prefetch(_:options:context:progress:)`` is its own group: groups run side by side, and
/// cancelling one (cancel the task awaiting it, or call ``cancelAll()`` for every group) leaves the others.
public final class ImagePrefetcher: Sendable {
    /// The manager that loads.
    public let manager: ImageManager
    /// Loads in flight per group (at least 1). Default 3.
    public let maxConcurrentPrefetchCount: Int
    /// Options every prefetch load gets; default `lowPriority`.
    public let options: ImageOptions
    private let groups = Locked<[Int: Task<PrefetchReport, Never>]>([:])
    private let nextGroup = Locked(0)

    /// A prefetcher on `manager`.
    public init(manager: ImageManager = .shared, maxConcurrentPrefetchCount: Int = 3,
                options: ImageOptions = [.lowPriority]) {
        self.manager = manager
        self.maxConcurrentPrefetchCount = max(1, maxConcurrentPrefetchCount)
        self.options = options
    }

    /// Loads every URL into the cache and reports how it went. `progress` gets (finished + failed, total)
    /// after each URL. URLs that are `nil` count as skipped; cancelled loads count as skipped too.
    public func prefetch(_ urls: [URL?], options extraOptions: ImageOptions = [], context: ImageContext = ImageContext(),
                         progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) async -> PrefetchReport {
        let id = nextGroup.withLock { value -> Int in
            defer { value += 1 }
            return value
        }
        let options = self.options.union(extraOptions)
        let task = Task { [manager, maxConcurrentPrefetchCount] in
            await Self.run(urls, manager: manager, width: maxConcurrentPrefetchCount, options: options,
                           context: context, progress: progress)
        }
        groups.withLock { $0[id] = task }
        let report = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        groups.withLock { _ = $0.removeValue(forKey: id) }
        return report
    }

    /// Cancels every running group; their reports count what had not finished as skipped.
    public func cancelAll() {
        let running = groups.withLock { Array($0.values) }
        for task in running { task.cancel() }
    }

    private static func run(_ urls: [URL?], manager: ImageManager, width: Int, options: ImageOptions,
                            context: ImageContext,
                            progress: (@Sendable (Int, Int) -> Void)?) async -> PrefetchReport {
        var report = PrefetchReport(total: urls.count)
        await withTaskGroup(of: PrefetchReport.Outcome.self) { group in
            var next = urls.startIndex
            func startNext() {
                guard next < urls.endIndex else { return }
                let url = urls[next]
                next += 1
                group.addTask {
                    guard let url else { return .skipped }
                    do {
                        _ = try await manager.loadImage(from: url, options: options, context: context)
                        return .finished
                    } catch let error as ImageError where error.code == .cancelled {
                        return .skipped
                    } catch {
                        return .failed
                    }
                }
            }
            for _ in 0..<min(width, urls.count) { startNext() }
            while let outcome = await group.next() {
                report.record(outcome)
                if outcome != .skipped { progress?(report.finished + report.failed, report.total) }
                if Task.isCancelled {
                    group.cancelAll()
                } else {
                    startNext()
                }
            }
        }
        // URLs never started because of cancellation are skipped.
        report.skipped = report.total - report.finished - report.failed
        return report
    }
}

/// How a prefetch went.
public struct PrefetchReport: Sendable, Equatable {
    /// URLs asked for.
    public var total: Int
    /// Loaded (from a cache or the network).
    public var finished: Int = 0
    /// Not loaded because they were `nil` or the prefetch was cancelled.
    public var skipped: Int = 0
    /// Failed (bad data, HTTP errors, blocked URLs…).
    public var failed: Int = 0

    /// Creates a report.
    public init(total: Int, finished: Int = 0, skipped: Int = 0, failed: Int = 0) {
        self.total = total
        self.finished = finished
        self.skipped = skipped
        self.failed = failed
    }

    enum Outcome: Sendable { case finished, skipped, failed }

    mutating func record(_ outcome: Outcome) {
        switch outcome {
        case .finished: finished += 1
        case .skipped: skipped += 1
        case .failed: failed += 1
        }
    }
}
