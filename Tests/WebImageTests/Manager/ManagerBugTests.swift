import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// Behaviours of the image manager that were once wrong, each test named after what was wrong and checking
/// what is right.
@Suite("Image manager: behaviours once wrong")
struct ManagerBugTests {
    @Test("bug 2: the memory fast path trims an animation for decodeFirstFrameOnly and gives bytes for avoidDecodeImage")
    func fastPathFrames() async throws {
        try await ManagerHarness.with { h in
            let gif = try Fixtures.data("gif/loop-3.gif")
            h.server.serve("a.gif", data: gif)
            let url = h.server.url("/files/a.gif")
            let full = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            #expect(full.image.frames.count > 1)
            let firstOnly = try await h.manager.loadImage(from: url, options: [.decodeFirstFrameOnly])
            #expect(firstOnly.cacheType == .memory)
            #expect(firstOnly.image.frames.count == 1)
            let light = try await h.manager.loadImage(from: url, options: [.avoidDecodeImage])
            #expect(light.image.frames.count == 1)
            #expect(light.data == gif)
            #expect(h.server.log.count("/files/a.gif") == 1)
        }
    }

    @Test("bug 4: a load that waits for the stores still waits when it joins one that does not")
    func waitStoreCacheJoined() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let url = h.server.url("/gate/w/a.png")
            let plain = h.manager.imageTask(from: url)
            let waiting = h.manager.imageTask(from: url, options: [.waitStoreCache])
            await h.server.expectEventually { $0.count("/gate/w/a.png") == 1 }
            h.server.openGate("w")
            _ = try await plain.result
            _ = try await waiting.result
            // Delivered only after the stores: the disk entry is there at once.
            #expect(await h.cache.contains(forKey: url.absoluteString, in: .disk) == .disk)
            #expect(h.server.log.count("/gate/w/a.png") == 1)
        }
    }

    @Test("bug 5: loads with different timeouts do not share one transfer")
    func timeoutsNotShared() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let url = h.server.url("/gate/t/a.png")
            let patient = h.manager.imageTask(
                from: url, context: ImageContext(download: DownloadContext(timeout: .seconds(60))))
            let hasty = h.manager.imageTask(
                from: url, context: ImageContext(download: DownloadContext(timeout: .milliseconds(300))))
            // The hasty load ends with its own timeout; the patient one is still waiting for its own transfer.
            #expect(await LoadingTest.failure { try await hasty.result }?.code == .timedOut)
            #expect(!patient.isFinished)
            // Whether the hasty request reached the server before its timeout depends on the machine's load; the
            // patient one is held at the gate either way.
            await h.server.expectEventually { $0.count("/gate/t/a.png") >= 1 }
            h.server.openGate("t")
            #expect(try await patient.result.image.pixels[0, 0] == RGBA(1, 2, 3))
        }
    }

    @Test("bug 8: avoidDecodeImage keeps a still image in the memory cache")
    func avoidDecodeStill() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(8, 8, 8)))
            let url = h.server.url("/files/a.png")
            _ = try await h.manager.loadImage(from: url, options: [.avoidDecodeImage, .waitStoreCache])
            let again = try await h.manager.loadImage(from: url, options: [.avoidDecodeImage])
            #expect(again.cacheType == .memory)
            #expect(h.server.log.count("/files/a.png") == 1)
        }
    }

    @Test("bug 9: a context serializer's bytes go to disk as they are; without one, the configuration's decides")
    func serializerOnce() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(8, 8, 8)))
            h.server.serve("b.png", data: try ManagerTest.png(RGBA(9, 9, 9)))
            let a = h.server.url("/files/a.png")
            let b = h.server.url("/files/b.png")
            // The configuration's serializer marks what it writes; the context's must not pass through it.
            let cache = ImageCache(memory: MemoryCache(), disk: DiskCache(folder: h.folder.url.appendingPathComponent("s")),
                                   coders: h.coders)
            let manager = ImageManager(cache: cache, loader: h.downloader, coders: h.coders, configuration: .init(
                cacheSerializer: CacheSerializer { _, data, _, _ in data.map { Data("manager".utf8) + $0 } }))
            let marker = Data("context".utf8)
            _ = try await manager.loadImage(from: a, options: [.waitStoreCache], context: ImageContext(
                cacheSerializer: CacheSerializer { _, data, _, _ in data.map { marker + $0 } }))
            let stored = try #require(await cache.cachedData(forKey: a.absoluteString)).data
            #expect(stored == marker + (try ManagerTest.png(RGBA(8, 8, 8))))
            _ = try await manager.loadImage(from: b, options: [.waitStoreCache])
            let other = try #require(await cache.cachedData(forKey: b.absoluteString)).data
            #expect(other == Data("manager".utf8) + (try ManagerTest.png(RGBA(9, 9, 9))))
        }
    }

    @Test("a serializer that returns nothing keeps the image off the disk, and in memory")
    func serializerSkipsDisk() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(8, 8, 8)))
            let url = h.server.url("/files/a.png")
            let cache = ImageCache(memory: MemoryCache(), disk: DiskCache(folder: h.folder.url.appendingPathComponent("s")),
                                   coders: h.coders)
            let manager = ImageManager(cache: cache, loader: h.downloader, coders: h.coders, configuration: .init(
                cacheSerializer: CacheSerializer { _, _, _, _ in nil }))
            _ = try await manager.loadImage(from: url, options: [.waitStoreCache])
            #expect(await cache.contains(forKey: url.absoluteString) == .memory)
            #expect(await cache.containsData(forKey: url.absoluteString) == false)
        }
    }
}
