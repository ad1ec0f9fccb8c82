import Foundation
import MetricsTestKit
import TestImageServer
import Testing
import WebImage
@testable import WebImageRedis

/// Redis as a tier of bytes in a chain: behind an image cache's memory and disk (a hit copied to the disk), stores
/// reaching it, and a Redis gone away costing lookups only a miss.
@Suite(.serialized) struct RedisDataTierTests {
    let metrics = TestMetrics()
    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<20_000).map { UInt8(truncatingIfNeeded: $0) })

    private func tier(_ server: RedisServerProcess) throws -> RedisImageCache {
        var configuration = try RedisConfiguration(url: server.url())
        configuration.commandTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        return RedisImageCache(configuration: configuration, namespace: "chain", timeToLive: .seconds(600),
                               metricsFactory: metrics)
    }

    private func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("redis-chain-\(UUID())")
    }

    @Test func behindAnImageCacheAHitIsRemoteAndIsCopiedToTheDisk() async throws {
        let server = try RedisServerProcess.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await TestImageServer.start()
        let image = try ImageCoders.shared.encode(
            Image(pixels: try PixelBuffer(width: 8, height: 6, filledWith: RGBA(10, 200, 30))), as: .png)
        origin.serve("dot.png", data: image, contentType: "image/png")
        let url = origin.url("/files/dot.png")
        try await tier(server).storeData(image, forKey: url.absoluteString, validators: .none)  // another process

        let cache = ImageCache(folder: folder, remoteTiers: [try tier(server)])
        let result = try await ImageManager(cache: cache).loadImage(from: url, options: [.waitStoreCache])
        #expect(result.cacheType == .remote)
        #expect(cache.disk.entry(forKey: url.absoluteString)?.data == image)
        // A second process on that folder, with no Redis, finds it on its disk.
        let restarted = try await ImageManager(cache: ImageCache(folder: folder)).loadImage(from: url)
        #expect(restarted.cacheType == .disk)
        #expect(origin.log.count("/files/dot.png") == 0)
        await origin.shutdown()
    }

    @Test func aStoreThroughAnImageCacheReachesRedis() async throws {
        let server = try RedisServerProcess.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ImageCache(folder: folder, remoteTiers: [try tier(server)])
        try await cache.storeData(png, forKey: "k", validators: HTTPValidators(etag: "\"e\""))
        #expect(cache.disk.entry(forKey: "k")?.data == png)
        let remote = try #require(await tier(server).cachedData(forKey: "k"))
        #expect(remote.data == png && remote.metadata?.validators.etag == "\"e\"")
    }

    @Test func aRedisGoneAwayCostsOnlyAMiss() async throws {
        let server = try RedisServerProcess.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let memory = MemoryDataCache(bytes: 1 << 20)
        let disk = DiskDataCache(disk: DiskCache(folder: folder))
        let redis = try tier(server)
        let tiers = DataCacheTiers([.init(memory, kind: .memory), .init(disk, kind: .disk),
                                    .init(redis, kind: .remote)])
        try await redis.storeData(png, forKey: "only in redis", validators: .none)
        try await disk.storeData(png, forKey: "on disk", validators: .none)
        #expect(await tiers.lookup(forKey: "only in redis")?.kind == .remote)
        #expect(await disk.containsData(forKey: "only in redis"))

        server.stop()
        try await redis.storeData(png, forKey: "late", validators: .none)  // dropped, not thrown
        #expect(await tiers.lookup(forKey: "late") == nil)
        #expect(await tiers.lookup(forKey: "on disk")?.kind == .disk)
        // Stores still reach the local tiers; the Redis write is dropped without an error.
        try await tiers.storeData(png, forKey: "new", validators: .none)
        #expect(await memory.containsData(forKey: "new"))
        #expect(await disk.containsData(forKey: "new"))
        // Many lookups at once while it is down: every one answered, a miss or a local hit.
        let answers = await withTaskGroup(of: ImageCacheType?.self) { group in
            for index in 0..<64 {
                group.addTask { await tiers.lookup(forKey: index.isMultiple(of: 2) ? "on disk" : "absent-\(index)")?.kind }
            }
            return await group.reduce(into: [ImageCacheType?]()) { $0.append($1) }
        }
        #expect(answers.count == 64)
        #expect(answers.filter { $0 != nil }.count == 32)
    }
}
