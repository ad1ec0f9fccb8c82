import Foundation
import NIOCore
import TestImageServer
import Testing
import WebImage
import WebImageRedis

@testable import WebImageServer

/// Several proxies on one Redis: a result rendered by one is served by the others without a fetch or a render,
/// one proxy renders while the others wait for its lease, and a Redis that goes away costs no request its answer.
@Suite(.serialized) struct SharedCacheProxyTests {
    /// A second proxy on `harness`'s origin and `redis`, with its own cache folder (another machine).
    private func peer(of harness: ProxyHarness, folder: URL) -> ImageProxy {
        var configuration = harness.proxy.configuration
        configuration.cacheDirectory = folder
        return ImageProxy(configuration: configuration)
    }

    /// Runs `body` with a harness whose proxy uses a new redis-server, connected, and a peer of it.
    private func withPeer(_ body: (ProxyHarness, ImageProxy) async throws -> Void) async throws {
        let redis = try RedisServerProcess.start()
        let redisConfiguration = try Self.configuration(redis)
        try await ProxyHarness.with(configuring: { $0.redis = redisConfiguration }) { harness in
            let folder = harness.folder.appendingPathExtension("peer")
            defer { try? FileManager.default.removeItem(at: folder) }
            let degraded = try await harness.proxy.connectSharedCache()
            #expect(degraded == nil)
            try await body(harness, peer(of: harness, folder: folder))
        }
    }

    private static func configuration(_ server: RedisServerProcess, password: String? = nil) throws -> RedisConfiguration {
        var configuration = try RedisConfiguration(url: server.url(password: password))
        configuration.commandTimeout = .seconds(30)  // sanitizer builds beside other tests are slow
        configuration.connectTimeout = .seconds(30)
        return configuration
    }

    @Test func aResultRenderedByOneProxyIsServedByAnotherWithoutFetchingOrRendering() async throws {
        try await withPeer { harness, other in
            let path = harness.plainPath(["rs:fit:120:120"], "photo.jpg")
            let first = await harness.get(path)
            #expect(first.status == 200)
            let second = await other.respond(to: ProxyRequest(method: "GET", path: path))
            #expect(second.status == 200 && second.body == first.body && second.header("ETag") == first.header("ETag"))
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            #expect(harness.proxy.renderingsStarted == 1 && other.renderingsStarted == 0)
            // Another size of the same source: rendered by the peer from the source Redis keeps, not fetched.
            #expect(await other.respond(to: ProxyRequest(method: "GET", path: harness.plainPath(["w:30"], "photo.jpg"))).status == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1 && other.renderingsStarted == 1)
            let health = await other.respond(to: ProxyRequest(method: "GET", path: "/health"))
            #expect(String(buffer: health.body) == "ok\nredis: ok\n")
            let metrics = await other.respond(to: ProxyRequest(method: "GET", path: "/metrics"))
            let lines = String(buffer: metrics.body).split(separator: "\n").map(String.init)
            #expect(lines.contains(#"webimage_serve_result_hits_total{tier="redis"} 1"#))
            #expect(lines.contains("webimage_serve_source_redis_hits_total 1"))
            #expect(lines.contains { $0.hasPrefix("webimage_redis_hits_total ") })
            #expect(lines.contains { $0.hasPrefix("webimage_redis_seconds_count") })
        }
    }

    /// Five hundred requests at once for a result that only Redis has (another proxy rendered it) ask Redis once
    /// between them: the lookup is the first step of the work they share, and the requests that come after it
    /// find the result in this proxy's own tiers.
    @Test func aBurstForAResultOnlyRedisHasAsksRedisOnce() async throws {
        try await withPeer { harness, other in
            let path = harness.plainPath(["rs:fit:100:100"], "photo.jpg")
            let first = await harness.get(path)
            #expect(first.status == 200)
            let answers = await withTaskGroup(of: ProxyResponse.self) { group in
                for _ in 0..<500 {
                    group.addTask { await other.respond(to: ProxyRequest(method: "GET", path: path)) }
                }
                return await group.reduce(into: [ProxyResponse]()) { $0.append($1) }
            }
            #expect(answers.count == 500 && answers.allSatisfy { $0.status == 200 && $0.body == first.body })
            #expect(other.renderingsStarted == 0 && harness.origin.log.count("/files/photo.jpg") == 1)
            let metrics = await other.respond(to: ProxyRequest(method: "GET", path: "/metrics"))
            let lines = String(buffer: metrics.body).split(separator: "\n").map(String.init)
            #expect(lines.contains("webimage_redis_hits_total 1"))
            let hits = ["memory", "disk", "redis"].compactMap { tier in
                lines.first { $0.hasPrefix(#"webimage_serve_result_hits_total{tier="\#(tier)"} "#) }
                    .flatMap { Int($0.split(separator: " ").last ?? "") }
            }
            #expect(hits.reduce(0, +) == 500, "\(hits)")
        }
    }

    @Test func concurrentRequestsOnTwoProxiesRenderOnce() async throws {
        let redis = try RedisServerProcess.start()
        let redisConfiguration = try Self.configuration(redis)
        // The waiting proxies give up on the lease after its time: under the parallel suite the gate can open
        // later than the default 10 s, and they then (rightly) render on their own. This test is about waiting.
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.redis = redisConfiguration
            $0.redisLeaseTime = .seconds(300)
        }
        try await ProxyHarness.with(configuring: configure) { harness in
            let folders = (0..<3).map { harness.folder.appendingPathExtension("peer\($0)") }
            defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
            let proxies = [harness.proxy] + folders.map { peer(of: harness, folder: $0) }
            // The origin holds the source until every proxy has asked: whoever holds the lease is mid-fetch while
            // the others wait for it.
            let path = harness.plainPath(["rs:fill:64:64"], "photo.jpg", path: "/gate/g1/")
            let answers = try await withThrowingTaskGroup(of: ProxyResponse.self) { group in
                for proxy in proxies {
                    group.addTask { await proxy.respond(to: ProxyRequest(method: "GET", path: path)) }
                }
                #expect(await harness.origin.waitUntil { $0.count("/gate/g1/photo.jpg") == 1 })
                try await Task.sleep(for: .milliseconds(300))  // let the others reach their wait; not asserted on
                harness.origin.openGate("g1")
                return try await group.reduce(into: [ProxyResponse]()) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == 200 && $0.body == answers[0].body })
            #expect(harness.origin.log.count("/gate/g1/photo.jpg") == 1)
            #expect(proxies.map(\.renderingsStarted).reduce(0, +) == 1)
        }
    }

    @Test func aRedisThatGoesAwayCostsNoAnswerAndHealthSaysDegraded() async throws {
        let redis = try RedisServerProcess.start()
        let redisConfiguration = try Self.configuration(redis)
        try await ProxyHarness.with(configuring: { $0.redis = redisConfiguration }) { harness in
            #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).status == 200)
            redis.stop()
            for width in 21..<30 {
                #expect(await harness.get(harness.plainPath(["w:\(width)"], "photo.jpg")).status == 200)
            }
            let health = await harness.get("/health")
            #expect(health.status == 200 && String(buffer: health.body) == "ok\nredis: degraded\n")
            try redis.restart()
            var recovered = false
            for _ in 0..<100 where !recovered {
                try await Task.sleep(for: .milliseconds(100))
                _ = await harness.get(harness.plainPath(["w:\(Int.random(in: 31...900))"], "photo.jpg"))
                recovered = String(buffer: await harness.get("/health").body) == "ok\nredis: ok\n"
            }
            #expect(recovered)
        }
    }

    @Test func aWrongPasswordIsAStartUpError() async throws {
        let redis = try RedisServerProcess.start(arguments: ["--requirepass", "right"])
        let wrong = try Self.configuration(redis, password: "wrong")
        try await ProxyHarness.with(configuring: { $0.redis = wrong }) { harness in
            do throws(RedisError) {
                _ = try await harness.proxy.connectSharedCache()
                Issue.record("a wrong password was accepted")
            } catch {
                guard case .authenticationFailed = error else { throw error }
            }
        }
    }

    @Test func anUnreachableRedisAtStartUpIsDegradedNotFatal() async throws {
        let redis = try RedisServerProcess.start()
        let configuration = try Self.configuration(redis)
        redis.stop()
        try await ProxyHarness.with(configuring: { $0.redis = configuration }) { harness in
            let degraded = try await harness.proxy.connectSharedCache()
            #expect(degraded != nil)
            #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).status == 200)
        }
    }
}
