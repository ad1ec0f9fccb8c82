import Foundation
import MetricsTestKit
import TestImageServer
import Testing
@testable import WebImage

@Suite("Image manager: options and context")
struct ManagerOptionsTests {
    @Test("avoidDecodeImage keeps an animation's bytes and decodes its first frame; preloadAllFrames decodes all")
    func avoidDecode() async throws {
        try await ManagerHarness.with { h in
            let gif = try Fixtures.data("gif/loop-3.gif")
            h.server.serve("a.gif", data: gif)
            let url = h.server.url("/files/a.gif")
            let light = try await h.manager.loadImage(from: url, options: [.avoidDecodeImage, .waitStoreCache])
            #expect(light.image.frames.count == 1)
            #expect(light.data == gif)
            let frames = try AnimatedImage(data: try #require(light.data)).frameCount
            #expect(frames > 1)
            // The single frame was not put in memory: a full load does not get it from there.
            let full = try await h.manager.loadImage(from: url, options: [.avoidDecodeImage, .preloadAllFrames])
            #expect(full.image.frames.count == frames)
            #expect(full.cacheType != .memory)
        }
    }

    @Test("scaleDownLargeImages decodes within the byte limit")
    func scaleDown() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("big.png", data: try ManagerTest.png(RGBA(4, 4, 4), width: 400, height: 400))
            let url = h.server.url("/files/big.png")
            let result = try await h.manager.loadImage(from: url, options: [.scaleDownLargeImages],
                                                       context: ImageContext(scaleDownLimitBytes: 100 * 100 * 4))
            #expect(result.image.size.width * result.image.size.height * 4 <= 100 * 100 * 4)
            #expect(result.image.size.width >= 90)
        }
    }

    @Test("store and query cache types are honoured")
    func cacheTypes() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(4, 5, 6)))
            let url = h.server.url("/files/a.png")
            _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache],
                                              context: ImageContext(storeCacheType: .memory))
            #expect(await h.cache.contains(forKey: url.absoluteString, in: .disk) == .none)
            let skipMemory = try await h.manager.loadImage(from: url, context: ImageContext(queryCacheType: .disk))
            #expect(skipMemory.cacheType == .none)
            #expect(h.server.log.count("/files/a.png") == 2)
        }
    }

    @Test("request modifier, decryptor and cache serializer from the context")
    func hooks() async throws {
        try await ManagerHarness.with { h in
            let png = try ManagerTest.png(RGBA(40, 50, 60))
            h.server.serve("a.b64", data: Data(png.base64EncodedString().utf8), contentType: "text/plain")
            let url = h.server.url("/files/a.b64")
            let serialized = Locked(0)
            let context = ImageContext(
                download: DownloadContext(
                    requestModifier: { request in
                        var request = request
                        request.headers["X-Token"] = "secret"
                        return request
                    },
                    decryptor: .base64),
                cacheSerializer: CacheSerializer { _, data, _, _ in
                    serialized.withLock { $0 += 1 }
                    return data
                })
            let result = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: context)
            #expect(result.image.pixels[0, 0] == RGBA(40, 50, 60))
            #expect(h.server.log.requests(for: "/files/a.b64").first?.header("X-Token") == "secret")
            #expect(serialized.withLock { $0 } == 1)
            let cancelled = await LoadingTest.failure {
                try await h.manager.loadImage(from: h.server.url("/files/other.png"),
                                              context: ImageContext(download: .init(requestModifier: { _ in nil })))
            }
            #expect(cancelled?.code == .cancelled)
            #expect(h.server.log.count("/files/other.png") == 0)
        }
    }

    @Test("metrics count hits by cache type, misses, bytes and errors")
    func metrics() async throws {
        let metrics = TestMetrics()
        try await ManagerHarness.with(configuration: .init(metricsFactory: metrics)) { h in
            let png = try ManagerTest.png(RGBA(1, 1, 1))
            h.server.serve("a.png", data: png)
            let url = h.server.url("/files/a.png")
            _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            _ = try await h.manager.loadImage(from: url)
            _ = try await h.freshManager(configuration: .init(metricsFactory: metrics)).loadImage(from: url)
            _ = await LoadingTest.failure { try await h.manager.loadImage(from: h.server.url("/status/404")) }
            #expect(counter(ManagerMetrics.hitsLabel, dimensions: [("type", "memory")], in: metrics) == 1)
            #expect(counter(ManagerMetrics.hitsLabel, dimensions: [("type", "disk")], in: metrics) == 1)
            #expect(counter(ManagerMetrics.missesLabel, in: metrics) == 2)
            #expect(counter(ManagerMetrics.bytesLabel, in: metrics) == Int64(png.count))
            let errors = counter(ManagerMetrics.errorsLabel, dimensions: [("code", "invalidDownloadStatusCode")],
                                 in: metrics)
            #expect(errors == 1)
        }
    }
}
