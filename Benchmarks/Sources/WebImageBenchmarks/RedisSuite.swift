import Foundation
import Synchronization
import WebImage
import WebImageRedis

/// The Redis tier's GET and SET of 50 KB values beside `redis-benchmark -d 51200 -c 8` on the same server
/// (issue 16): eight requests in flight on eight connections, as redis-benchmark's eight clients keep one each.
/// Wall-clock operations per second; each value is the tier's whole entry (header, checksum) and each GET is
/// verified, so this is the cost a proxy pays, not just the client's. With `tasksOnEventLoops` the callers are
/// tasks on NIO's event loops, as a request's are in `webimage serve`; otherwise on Swift's own thread pool, as in
/// an app that has not handed its tasks to NIO.
enum RedisSuite {
    static func run(url: String, tasksOnEventLoops: Bool, operations: Int = 20_000) async throws {
        let implementation = tasksOnEventLoops ? "swift-web-image, tasks on the event loops" : "swift-web-image"
        var configuration = try RedisConfiguration(url: url)
        configuration.poolSize = 8
        let tier = RedisImageCache(configuration: configuration, namespace: "bench")
        try await tier.connect()
        let value = Data((0..<51_200).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        let keys = (0..<1_000).map { "https://example.com/\($0).jpg" }

        let setRate = try await rate(operations) { index in
            try await tier.storeData(value, forKey: keys[index % keys.count], validators: .none)
        }
        Measurement(suite: "redis", name: "SET 50 KB values, 8 in flight", implementation: implementation,
                    value: setRate, unit: "ops/s").emit()
        let getRate = try await rate(operations) { index in
            guard await tier.cachedData(forKey: keys[index % keys.count])?.data.count == value.count else {
                throw CocoaError(.fileReadCorruptFile)
            }
        }
        Measurement(suite: "redis", name: "GET 50 KB values, 8 in flight", implementation: implementation,
                    value: getRate, unit: "ops/s").emit()
        if tier.isDegraded { throw CocoaError(.fileReadUnknown) }
    }

    /// Runs `operation` `count` times, eight at a time, and returns operations per second of wall time.
    private static func rate(_ count: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
        let next = Counter()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while let index = next.take(below: count) { try await operation(index) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Hands out 0, 1, 2 … to the tasks that share the work.
    private final class Counter: Sendable {
        private let value = Mutex(0)
        func take(below limit: Int) -> Int? {
            value.withLock { value in
                guard value < limit else { return nil }
                defer { value += 1 }
                return value
            }
        }
    }
}
