import Foundation
import MetricsTestKit
import NIOCore
import TestImageServer
import Testing
import WebImage
@testable import WebImageRedis

/// The cache tier against a real redis-server: entries, damage, expiry, namespaces, and a place in `ImageCaches`.
@Suite(.serialized) struct RedisImageCacheTests {
    let server: RedisServerProcess
    let metrics = TestMetrics()

    init() throws {
        server = try RedisServerProcess.start()
    }

    func tier(namespace: String = "test", timeToLive: Duration = .seconds(3600)) throws -> RedisImageCache {
        var configuration = try RedisConfiguration(url: server.url())
        configuration.commandTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        return RedisImageCache(configuration: configuration, namespace: namespace, timeToLive: timeToLive,
                               metricsFactory: metrics)
    }

    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<50_000).map { UInt8(truncatingIfNeeded: $0) })

    private func count(_ label: String) -> Int64 {
        metrics.counters(label: label).map(\.totalValue).reduce(0, +)
    }

    @Test func storedBytesComeBackWithTheirValidatorsAndFormat() async throws {
        let tier = try tier()
        let validators = HTTPValidators(etag: "\"v1\"", lastModified: "Tue, 24 Nov 2026 07:00:00 GMT", expires: 1_900_000_000)
        try await tier.storeData(png, forKey: "https://example.com/a.png", validators: validators)
        let hit = try #require(await tier.cachedData(forKey: "https://example.com/a.png"))
        #expect(hit.data == png)
        #expect(hit.metadata?.validators == validators)
        #expect(hit.metadata?.format == .png)
        #expect(await tier.containsData(forKey: "https://example.com/a.png"))
        #expect(await tier.cachedData(forKey: "https://example.com/b.png") == nil)
        #expect(count(RedisTierMetrics.hitsLabel) == 1)
        #expect(count(RedisTierMetrics.missesLabel) == 1)

        #expect(try await tier.updateValidators(HTTPValidators(etag: "\"v2\""), forKey: "https://example.com/a.png"))
        #expect(await tier.cachedData(forKey: "https://example.com/a.png")?.metadata?.validators.etag == "\"v2\"")
    }

    @Test func keysAreNamespacedHashesWithAnExpiry() async throws {
        let tier = try tier(namespace: "app", timeToLive: .seconds(120))
        let key = String(repeating: "long key ", count: 500)
        try await tier.storeData(png, forKey: key, validators: .none)
        let redisKey = tier.redisKey(forKey: key)
        #expect(redisKey.hasPrefix("app:") && redisKey.count == 4 + 64)
        let client = try #require(tier.commands as? RESPClient)
        guard case .integer(let milliseconds) = try await client.command(["PTTL", .text(redisKey)]) else {
            Issue.record("no TTL")
            return
        }
        #expect(milliseconds > 100_000 && milliseconds <= 120_000)
    }

    @Test(arguments: ["flip a payload byte", "truncate", "garbage", "another key's entry"])
    func aDamagedValueIsAMissAndIsDeleted(_ damage: String) async throws {
        let tier = try tier()
        let client = try #require(tier.commands as? RESPClient)
        try await tier.storeData(png, forKey: "k", validators: .none)
        let redisKey = tier.redisKey(forKey: "k")
        var stored = Data(try #require(await client.get(redisKey)).readableBytesView)
        switch damage {
        case "flip a payload byte": stored[stored.count - 100] ^= 0x01
        case "truncate": stored.removeLast(10)
        case "garbage": stored = Data("not an entry".utf8)
        default:
            try await tier.storeData(png, forKey: "other", validators: .none)
            stored = Data(try #require(await client.get(tier.redisKey(forKey: "other"))).readableBytesView)
        }
        _ = try await client.set(redisKey, to: .bytes(stored), expiresIn: nil, onlyIfAbsent: false)
        #expect(await tier.cachedData(forKey: "k") == nil)
        #expect(try await client.exists(redisKey) == false)
        #expect(count(RedisTierMetrics.damagedLabel) == 1)
    }

    @Test func removingAllTouchesOnlyItsNamespace() async throws {
        let mine = try tier(namespace: "mine"), theirs = try tier(namespace: "theirs")
        for index in 0..<20 { try await mine.storeData(png, forKey: "\(index)", validators: .none) }
        try await theirs.storeData(png, forKey: "0", validators: .none)
        await mine.removeAllData()
        #expect(await mine.cachedData(forKey: "3") == nil)
        #expect(await theirs.cachedData(forKey: "0")?.data == png)
        await theirs.removeData(forKey: "0")
        #expect(await theirs.containsData(forKey: "0") == false)
    }

    @Test func asTheThirdTierItServesAnotherProcessesStores() async throws {
        let folders = (0..<2).map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("redis-tier-\(UUID())") }
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
        // Two "nodes": each its own memory and disk, one Redis. Stores go to every tier.
        let nodes = try folders.map { folder in
            ImageCaches(caches: [try tier(), ImageCache(folder: folder)], policies: .init(store: .serial))
        }
        try await nodes[0].storeData(png, forKey: "shared", validators: HTTPValidators(etag: "\"e\""))
        let hit = try #require(await nodes[1].cachedData(forKey: "shared"))
        #expect(hit.data == png && hit.metadata?.validators.etag == "\"e\"")
        #expect(hit.tier == .remote)
        // Once copied to the second node's disk, its disk answers first.
        try await nodes[1].caches[1].storeData(png, forKey: "shared", validators: .none)
        #expect(await nodes[1].cachedData(forKey: "shared")?.tier == .disk)
    }

    @Test func aManagerReportsARedisHitAsRemoteAndFetchesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redis-manager-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await TestImageServer.start()
        let image = try ImageCoders.shared.encode(
            Image(pixels: try PixelBuffer(width: 8, height: 6, filledWith: RGBA(10, 200, 30))), as: .png)
        origin.serve("dot.png", data: image, contentType: "image/png")
        let url = origin.url("/files/dot.png")
        let manager = ImageManager(cache: ImageCaches(caches: [try tier(), ImageCache(folder: folder)]))
        try await tier().storeData(image, forKey: url.absoluteString, validators: .none)  // another process stored it
        let result = try await manager.loadImage(from: url)
        #expect(result.cacheType == .remote && result.cacheType.description == "remote")
        #expect(result.image.size == PixelSize(width: 8, height: 6))
        #expect(origin.log.count("/files/dot.png") == 0)
        await origin.shutdown()
    }
}
