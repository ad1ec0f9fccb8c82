import Foundation
import MetricsTestKit
import TestImageServer
import Testing
import WebImage
@testable import WebImageRedis

/// Redis failing under the tier: killed and restarted, full, and a lease holder that never comes back. The tier
/// must degrade to misses, never throw, and come back by itself.
@Suite(.serialized) struct RedisFaultTests {
    let metrics = TestMetrics()
    private let bytes = Data([0xFF, 0xD8, 0xFF] + (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func tier(_ server: RedisServerProcess, openTime: Duration = .milliseconds(200)) throws -> RedisImageCache {
        var configuration = try RedisConfiguration(url: server.url())
        configuration.commandTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        return RedisImageCache(commands: RESPClient(configuration: configuration), configuration: configuration,
                               namespace: "faults", timeToLive: .seconds(600), metricsFactory: metrics,
                               breaker: CircuitBreaker(threshold: 3, openTime: openTime))
    }

    private func errors() -> Int64 {
        metrics.counters(label: RedisTierMetrics.errorsLabel).map(\.totalValue).reduce(0, +)
    }

    @Test func aKilledServerMakesMissesAndARestartedOneIsUsedAgain() async throws {
        let server = try RedisServerProcess.start()
        let tier = try tier(server)
        try await tier.storeData(bytes, forKey: "before", validators: .none)
        #expect(await tier.cachedData(forKey: "before") != nil)

        server.stop()
        for index in 0..<10 {
            #expect(await tier.cachedData(forKey: "before") == nil)
            try await tier.storeData(bytes, forKey: "during-\(index)", validators: .none)  // dropped, not thrown
        }
        #expect(tier.isDegraded)
        #expect(errors() >= 10)

        try server.restart()
        // Half-open: after the open time one request goes through, succeeds, and closes the breaker.
        var recovered = false
        for _ in 0..<200 where !recovered {
            try await Task.sleep(for: .milliseconds(50))
            try await tier.storeData(bytes, forKey: "after", validators: .none)
            recovered = await tier.cachedData(forKey: "after")?.data == bytes
        }
        #expect(recovered)
        #expect(!tier.isDegraded)
    }

    @Test func aStuckServerMakesMissesAfterTheTimeoutAndTheBreakerStopsAsking() async throws {
        let server = try RedisServerProcess.start()
        var configuration = try RedisConfiguration(url: server.url())
        configuration.commandTimeout = .milliseconds(200)
        configuration.connectTimeout = .seconds(30)
        let tier = RedisImageCache(commands: RESPClient(configuration: configuration), configuration: configuration,
                                   namespace: "stuck", timeToLive: .seconds(600), metricsFactory: metrics,
                                   breaker: CircuitBreaker(threshold: 3, openTime: .seconds(3600)))
        try await tier.storeData(bytes, forKey: "k", validators: .none)
        try await tier.connect()  // every pooled connection: a handshake would wait for the connect timeout
        // Counted from here: under a sanitizer on a loaded machine the store above may itself pass 200 ms. Each
        // ask below is one error either way, a timeout or the open breaker's refusal.
        let before = errors()
        server.pause()
        defer { server.resume() }
        for _ in 0..<3 { #expect(await tier.cachedData(forKey: "k") == nil) }
        #expect(tier.isDegraded)
        // Open: answered at once, without waiting for another timeout (the open time outlasts the test).
        #expect(await tier.cachedData(forKey: "k") == nil)
        #expect(errors() - before == 4)
    }

    @Test func aFullServerEvictsAndNothingFails() async throws {
        let server = try RedisServerProcess.start(arguments: ["--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru"])
        let tier = try tier(server)
        for index in 0..<200 {  // 10 MB into 4 MB
            try await tier.storeData(bytes, forKey: "\(index)", validators: .none)
        }
        #expect(errors() == 0)
        // Which keys go is not fixed: Redis samples keys to evict, and its LRU clock ticks once a second, so every
        // key here looks equally old. What is fixed: most are gone (misses), and those left are whole.
        var kept = 0
        for index in 0..<200 {
            guard let stored = await tier.cachedData(forKey: "\(index)") else { continue }
            #expect(stored.data == bytes)
            kept += 1
        }
        #expect(kept > 0)
        #expect(kept <= 4 * 1_048_576 / bytes.count)
        #expect(errors() == 0)
        #expect(!tier.isDegraded)
    }

    @Test func aFullServerWithoutEvictionRefusesWritesWithoutFailingReads() async throws {
        let server = try RedisServerProcess.start(arguments: ["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"])
        let tier = try tier(server)
        for index in 0..<80 { try await tier.storeData(bytes, forKey: "\(index)", validators: .none) }
        #expect(errors() > 0)  // OOM replies, counted
        #expect(!tier.isDegraded)  // the server answers: no reason to stop asking it
        #expect(await tier.cachedData(forKey: "0")?.data == bytes)
    }

    @Test func oneNodeRendersWhileTheOtherWaitsForItsValue() async throws {
        let server = try RedisServerProcess.start()
        let nodes = try (0..<2).map { _ in try tier(server) }
        guard case .render(let lease) = await nodes[0].renderTurn(forKey: "image", leaseTime: .seconds(30)) else {
            Issue.record("the first node did not get the lease")
            return
        }
        async let waiting = nodes[1].renderTurn(forKey: "image", leaseTime: .seconds(30))
        try await Task.sleep(for: .milliseconds(100))
        try await nodes[0].storeData(bytes, forKey: "image", validators: .none)
        await lease.release()
        guard case .stored(let stored) = await waiting else {
            Issue.record("the second node did not get the stored value")
            return
        }
        #expect(stored.data == bytes)
    }

    @Test func aLeaseHolderThatDiesDelaysOthersByTheLeaseTimeAtMost() async throws {
        let server = try RedisServerProcess.start()
        let crashed = try tier(server), survivor = try tier(server)
        guard case .render = await crashed.renderTurn(forKey: "image", leaseTime: .milliseconds(300)) else {
            Issue.record("no lease")
            return
        }
        // The holder never stores nor releases. The survivor takes the lease once it expires.
        guard case .render(let lease) = await survivor.renderTurn(forKey: "image", leaseTime: .milliseconds(300)) else {
            Issue.record("the survivor did not take over the lease")
            return
        }
        await lease.release()
        #expect(try await (survivor.commands as? RESPClient)?.exists(survivor.redisKey(forKey: "image") + ":lock") == false)
    }

    @Test func withRedisDownEveryoneRendersWithoutALease() async throws {
        let server = try RedisServerProcess.start()
        let tier = try tier(server)
        server.stop()
        guard case .renderWithoutLease = await tier.renderTurn(forKey: "image") else {
            Issue.record("a lease without Redis")
            return
        }
    }
}
