import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// Every ``ImageOptions`` flag and every ``ImageContext`` field through the manager at least once, each with the
/// behaviour it promises (the target-only flags through ``ImageTarget``, in ImageTargetTests).
@Suite("Image manager: every option and context field")
struct ManagerMatrixTests {
    @Test("every option flag")
    func options() async throws {
        try await ManagerHarness.with { h in
            let png = try ManagerTest.png(RGBA(1, 2, 3))
            let gif = try Fixtures.data("gif/loop-3.gif")
            h.server.serve("a.png", data: png)
            h.server.serve("a.gif", data: gif)
            h.server.serve("big.png", data: try ManagerTest.png(RGBA(4, 4, 4), width: 400, height: 400))
            let a = h.server.url("/files/a.png"), anim = h.server.url("/files/a.gif")
            let m = h.manager

            // retryFailed: a blocked URL loads again only with it.
            _ = await LoadingTest.failure { try await m.loadImage(from: h.server.url("/status/404")) }
            #expect(await LoadingTest.failure { try await m.loadImage(from: h.server.url("/status/404")) }?.code == .blackListed)
            #expect(await LoadingTest.failure {
                try await m.loadImage(from: h.server.url("/status/404"), options: [.retryFailed])
            }?.code == .invalidDownloadStatusCode)
            // lowPriority / highPriority: read into the request's priority.
            #expect(ImageRequest(url: a, options: [.lowPriority]).priority == .low)
            #expect(ImageRequest(url: a, options: [.highPriority]).priority == .high)
            #expect(m.imageTask(from: a, options: [.highPriority]).priority == .high)
            // waitStoreCache: stored before delivery.
            let cold = try await m.loadImage(from: a, options: [.waitStoreCache, .lowPriority])
            #expect(cold.cacheType == .none)
            #expect(await h.cache.contains(forKey: a.absoluteString, in: .disk) == .disk)
            // queryMemoryData (+ queryMemoryDataSync): bytes with a memory hit.
            #expect(try await m.loadImage(from: a, options: [.queryMemoryData]).data == png)
            #expect(try await m.loadImage(from: a, options: [.queryMemoryData, .queryMemoryDataSync]).data == png)
            // queryDiskDataSync: a disk hit read on the caller's task.
            let diskHit = try await h.freshManager().loadImage(from: a, options: [.queryDiskDataSync])
            #expect(diskHit.cacheType == .disk && diskHit.data == png, "a disk hit comes with its bytes")
            #expect(try await m.loadImage(from: a).data == nil, "a memory hit only when asked for them")
            // refreshCached: one conditional request, answered 304: the cached image.
            let refreshed = try await m.loadImage(from: a, options: [.refreshCached])
            #expect(refreshed.image.pixels[0, 0] == RGBA(1, 2, 3))
            #expect(h.server.log.requests(for: "/files/a.png").last?.header("If-None-Match") != nil)
            // fromCacheOnly / fromLoaderOnly.
            #expect(try await m.loadImage(from: a, options: [.fromCacheOnly]).cacheType == .memory)
            #expect(try await m.loadImage(from: a, options: [.fromLoaderOnly]).cacheType == .none)
            // handleCookies: a stored cookie goes with the next request.
            h.server.serve("c.png", data: png)
            _ = try await m.loadImage(from: h.server.url("/cookie/c.png?set=k%3Dv"), options: [.handleCookies])
            _ = try await m.loadImage(from: h.server.url("/cookie/c.png"), options: [.handleCookies, .fromLoaderOnly])
            #expect(h.server.log.requests(for: "/cookie/c.png").last?.header("Cookie") == "k=v")
            // allowInvalidSSLCertificates: reaches the request (TLS itself is covered in TLSTests).
            let request = try h.downloader.makeRequest(for: a, options: ImageOptions.allowInvalidSSLCertificates.downloadOptions)
            #expect(request.allowsInvalidCertificates)
            #expect(try await m.loadImage(from: a, options: [.allowInvalidSSLCertificates, .fromLoaderOnly]).cacheType == .none)
            // progressiveLoad: a load with it completes with the full image (previews: ImageManagerTests).
            #expect(try await m.loadImage(from: h.server.url("/files/big.png"), options: [.progressiveLoad]).image.size.width == 400)
            // scaleDownLargeImages.
            let scaled = try await m.loadImage(from: h.server.url("/files/big.png"), options: [.scaleDownLargeImages, .fromLoaderOnly],
                                               context: ImageContext(scaleDownLimitBytes: 100 * 100 * 4))
            #expect(scaled.image.size.width <= 100)
            // decodeFirstFrameOnly / avoidDecodeImage / preloadAllFrames / transformAnimatedImage.
            #expect(try await m.loadImage(from: anim, options: [.decodeFirstFrameOnly]).image.frames.count == 1)
            let light = try await m.loadImage(from: anim, options: [.avoidDecodeImage, .fromLoaderOnly])
            #expect(light.image.frames.count == 1 && light.data == gif)
            #expect(try await m.loadImage(from: anim, options: [.avoidDecodeImage, .preloadAllFrames]).image.frames.count > 1)
            let paint = CountingTransformer()
            let painted = try await m.loadImage(from: anim, options: [.transformAnimatedImage],
                                                context: ImageContext(transformer: .use(paint)))
            #expect(painted.image.frames.allSatisfy { $0.pixels[0, 0] == RGBA(0, 0, 255) })
            // refreshIfStale on a fresh entry (the heuristic from the 2015 Last-Modified): no request.
            _ = try await m.loadImage(from: a, options: [.waitStoreCache])
            let before = h.server.log.count("/files/a.png")
            #expect(try await m.loadImage(from: a, options: [.refreshIfStale]).cacheType == .memory)
            #expect(h.server.log.count("/files/a.png") == before)
        }
    }

    @Test("every context field")
    func contextFields() async throws {
        try await ManagerHarness.with { h in
            let png = try ManagerTest.png(RGBA(1, 2, 3), width: 80, height: 40)
            h.server.serve("a.png", data: png)
            h.server.serve("a@2x.png", data: png)
            h.server.serve("a.b64", data: Data(png.base64EncodedString().utf8), contentType: "text/plain")
            let a = h.server.url("/files/a.png")
            let m = h.manager
            let other = ImageCache(folder: h.folder.url.appendingPathComponent("other"), coders: h.coders)
            let originals = ImageCache(folder: h.folder.url.appendingPathComponent("originals"), coders: h.coders)

            // cache, coders, loader: the context's parts are used instead of the manager's.
            let counter = CountingCoder()
            _ = try await m.loadImage(from: a, options: [.waitStoreCache], context: ImageContext(
                cache: other, coders: ImageCoders(coders: [counter])))
            #expect(await other.contains(forKey: a.absoluteString, in: .all) == .memory)
            #expect(counter.decodeCount == 1)
            let gate = GateLoader(body: png)
            gate.open("x")
            _ = try await m.loadImage(from: URL(string: "gate://x")!, context: ImageContext(loader: gate))
            #expect(gate.started == ["x"])
            // transformer, thumbnailPixelSize, preserveAspectRatio, originalCache, originalStoreCacheType.
            let thumb = try await m.loadImage(from: a, options: [.waitStoreCache], context: ImageContext(
                transformer: .none, thumbnailPixelSize: PixelSize(width: 20, height: 20), preserveAspectRatio: false,
                originalStoreCacheType: .disk, originalCache: originals))
            #expect(thumb.image.size == PixelSize(width: 20, height: 20))
            #expect(await originals.contains(forKey: a.absoluteString, in: .disk) == .disk)
            // originalQueryCacheType: another size comes from the stored original, without a request.
            let before = h.server.log.count("/files/a.png")
            let derived = try await m.loadImage(from: a, context: ImageContext(
                thumbnailPixelSize: PixelSize(width: 10, height: 10), originalQueryCacheType: .disk, originalCache: originals))
            #expect(derived.cacheType == .disk)
            #expect(h.server.log.count("/files/a.png") == before)
            // scaleFactor, and the `@2x` file name rule it overrides.
            #expect(try await m.loadImage(from: h.server.url("/files/a@2x.png")).image.scale == 2)
            #expect(try await m.loadImage(from: a, options: [.fromLoaderOnly, .waitStoreCache],
                                          context: ImageContext(scaleFactor: 3)).image.scale == 3)
            // queryCacheType / storeCacheType.
            _ = try await m.loadImage(from: a, options: [.fromLoaderOnly, .waitStoreCache],
                                      context: ImageContext(cache: ImageCache(folder: h.folder.url.appendingPathComponent("m"),
                                                                              coders: h.coders), storeCacheType: .memory))
            #expect(try await m.loadImage(from: a, context: ImageContext(queryCacheType: .disk)).cacheType == .disk)
            // headers, credentials, timeout, requestModifier, responseModifier, decryptor.
            let seenStatus = Locked<Int?>(nil)
            let decrypted = try await m.loadImage(
                from: h.server.url("/files/a.b64"), context: ImageContext(download: .init(
                headers: ["X-A": "1"], credentials: BasicCredentials(user: "u", password: "p"),
                requestModifier: { var r = $0; r.headers["X-B"] = "2"; return r },
                responseModifier: { response in seenStatus.withLock { $0 = response.statusCode }; return response },
                decryptor: .base64, timeout: .seconds(30))))
            #expect(decrypted.image.pixels[0, 0] == RGBA(1, 2, 3))
            let sent = h.server.log.requests(for: "/files/a.b64").last
            #expect(sent?.header("X-A") == "1" && sent?.header("X-B") == "2")
            #expect(sent?.header("Authorization") == BasicCredentials(user: "u", password: "p").authorizationHeader)
            #expect(seenStatus.withLock { $0 } == 200)
            // cacheKeyFilter: two URLs, one key.
            let filter = CacheKeyFilter.droppingQuery
            _ = try await m.loadImage(from: h.server.url("/files/a.png?v=1"), options: [.waitStoreCache],
                                      context: ImageContext(cacheKeyFilter: filter))
            #expect(try await m.loadImage(from: h.server.url("/files/a.png?v=2"),
                                          context: ImageContext(cacheKeyFilter: filter)).cacheType == .memory)
            // cacheSerializer: decides the disk bytes.
            let serializerCache = ImageCache(folder: h.folder.url.appendingPathComponent("s"), coders: h.coders)
            _ = try await m.loadImage(from: a, options: [.fromLoaderOnly, .waitStoreCache], context: ImageContext(
                cache: serializerCache, cacheSerializer: CacheSerializer { _, _, _, _ in nil }))
            #expect(await serializerCache.contains(forKey: a.absoluteString, in: .disk) == .none)
            // scaleDownLimitBytes is in the options test; decodeLimits: an image over the limit is refused.
            let limited = await LoadingTest.failure {
                try await m.loadImage(from: a, options: [.fromLoaderOnly],
                                      context: ImageContext(decodeLimits: DecodeLimits(maxPixels: 100)))
            }
            #expect(limited?.code == .imageTooLarge)
        }
    }
}
