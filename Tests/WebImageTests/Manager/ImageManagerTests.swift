import CoderTestSupport
import Foundation
import TestImageServer
import Testing
@testable import WebImage

@Suite("Image manager: the pipeline")
struct ImageManagerTests {
    @Test("cold from the network, warm from memory, then from disk in a fresh manager")
    func coldWarmDisk() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("red.png", data: try ManagerTest.png(RGBA(255, 0, 0)), contentType: "image/png")
            let url = h.server.url("/files/red.png")
            let cold = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            #expect(cold.cacheType == .none)
            #expect(cold.image.pixels[3, 3] == RGBA(255, 0, 0))
            #expect(cold.data == (try ManagerTest.png(RGBA(255, 0, 0))))
            let warm = try await h.manager.loadImage(from: url)
            #expect(warm.cacheType == .memory)
            let disk = try await h.freshManager().loadImage(from: url)
            #expect(disk.cacheType == .disk)
            #expect(disk.image.pixels[0, 0] == RGBA(255, 0, 0))
            #expect(h.server.log.count("/files/red.png") == 1)
            #expect(h.counter.decodeCount == 2)  // the cold load and the disk hit; memory needs none
        }
    }

    @Test("a transformed thumbnail stores the original on disk and the result under its own key")
    func derivedKeys() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("big.png", data: try ManagerTest.png(RGBA(0, 255, 0), width: 400, height: 200))
            let url = h.server.url("/files/big.png")
            let paint = CountingTransformer()
            let context = ImageContext(transformer: .use(paint), thumbnailPixelSize: PixelSize(width: 100, height: 100))
            let first = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: context)
            #expect(first.image.size == PixelSize(width: 100, height: 50))
            #expect(first.image.pixels[0, 0] == RGBA(0, 0, 255))
            let finalKey = h.manager.cacheKey(for: url, context: context)
            #expect(await h.cache.contains(forKey: url.absoluteString, in: .all) == .disk)
            #expect(await h.cache.contains(forKey: finalKey, in: .all) == .memory)
            // Another thumbnail size comes from the cached original: no request.
            let other = ImageContext(thumbnailPixelSize: PixelSize(width: 50, height: 50))
            let second = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: other)
            #expect(second.cacheType == .disk)
            #expect(second.image.size == PixelSize(width: 50, height: 25))
            #expect(second.image.pixels[0, 0] == RGBA(0, 255, 0))
            #expect(h.server.log.count("/files/big.png") == 1)
        }
    }

    @Test("a thumbnail of an original held in memory is made from its pixels: no request, no decode, a decode's pixels")
    func thumbnailOfAnOriginalInMemory() async throws {
        try await ManagerHarness.with { h in
            let png = try ImageCoders.shared.encode(Image(pixels: GrainyPhoto.pixels(width: 300, height: 200)), as: .png)
            h.server.serve("photo.png", data: png)
            let url = h.server.url("/files/photo.png")
            let original = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            #expect(original.image.size == PixelSize(width: 300, height: 200))
            #expect(h.counter.decodeCount == 1)
            let context = ImageContext(thumbnailPixelSize: PixelSize(width: 60, height: 60),
                                       originalQueryCacheType: .memory)
            let thumbnail = try await h.manager.loadImage(from: url, context: context)
            #expect(thumbnail.cacheType == .memory)
            #expect(thumbnail.image.size == PixelSize(width: 60, height: 40))
            #expect(thumbnail.image.flags.contains(.thumbnail))
            #expect(h.counter.decodeCount == 1)
            #expect(h.server.log.count("/files/photo.png") == 1)
            // The same pixels a decode of the file to that size gives.
            let decoded = try ImageCoders.shared.decode(png, options: DecodeOptions(
                thumbnailPixelSize: PixelSize(width: 60, height: 60)))
            #expect(decoded.size == thumbnail.image.size)
            let (a, b) = (decoded.pixels, thumbnail.image.pixels)
            let differing = (0..<a.height).flatMap { y in (0..<a.width).map { (x: $0, y: y) } }
                .filter { a[$0.x, $0.y] != b[$0.x, $0.y] }.count
            #expect(differing == 0)
        }
    }

    @Test("a transformed photo read back from the disk has exactly the pixels of the first answer")
    func diskHitEqualsTheFirstAnswer() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("photo.jpg", data: try GrainyPhoto.jpeg(width: 300, height: 200, progressive: false))
            let url = h.server.url("/files/photo.jpg")
            let context = ImageContext(transformer: .use(.resize(to: PixelSize(width: 64, height: 64), fit: .aspectFill)))
            let first = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: context)
            #expect(first.cacheType == .none)
            let again = try await h.freshManager().loadImage(from: url, context: context)
            #expect(again.cacheType == .disk)
            #expect(again.image.size == first.image.size)
            let (a, b) = (first.image.pixels, again.image.pixels)
            let differing = (0..<a.height).flatMap { y in (0..<a.width).map { (x: $0, y: y) } }
                .filter { a[$0.x, $0.y] != b[$0.x, $0.y] }.count
            #expect(differing == 0)
        }
    }

    @Test("a result encoding is encoded once: the first answer, a memory hit and a disk hit carry the same bytes")
    func resultEncodedOnce() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("photo.jpg", data: try GrainyPhoto.jpeg(width: 300, height: 200, progressive: false))
            let url = h.server.url("/files/photo.jpg")
            let resize = ImageTransformers.Resize(to: PixelSize(width: 64, height: 64), fit: .aspectFill)
            let png = ImageContext(transformer: .use(resize), resultEncoding: ResultEncoding(format: .png))
            let first = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: png)
            let bytes = try #require(first.data)
            #expect(ImageFormat.detect(bytes) == .png)
            #expect(try ImageCoders.shared.decode(bytes).pixels.bytes == first.image.pixels.bytes)
            #expect(h.counter.encodeCount == 1)
            let memory = try await h.manager.loadImage(from: url, context: png)
            #expect(memory.cacheType == .memory && memory.data == bytes)
            let disk = try await h.freshManager().loadImage(from: url, context: png)
            #expect(disk.cacheType == .disk && disk.data == bytes)
            #expect(h.counter.encodeCount == 1)
            // Another encoding is another result: made from the original kept on disk, encoded once more.
            let jpeg = ImageContext(transformer: .use(resize),
                                    resultEncoding: ResultEncoding(format: .jpeg, options: EncodeOptions(quality: 0.5)))
            let small = try await h.manager.loadImage(from: url, context: jpeg)
            #expect(small.cacheType == .disk)
            #expect(small.data.map(ImageFormat.detect) == .jpeg)
            #expect(h.counter.encodeCount == 2)
            #expect(h.server.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test("animated images skip the transformer unless transformAnimatedImage")
    func animatedTransform() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("anim.gif", data: try Fixtures.data("gif/loop-3.gif"))
            let url = h.server.url("/files/anim.gif")
            let paint = CountingTransformer()
            let plain = try await h.manager.loadImage(from: url, context: ImageContext(transformer: .use(paint)))
            #expect(plain.image.isAnimated)
            #expect(paint.runCount == 0)
            #expect(!plain.image.flags.contains(.transformed))
            let painted = try await h.manager.loadImage(from: url, options: [.transformAnimatedImage, .fromLoaderOnly],
                                                        context: ImageContext(transformer: .use(paint)))
            #expect(paint.runCount == 1)
            #expect(painted.image.frames.allSatisfy { $0.pixels[0, 0] == RGBA(0, 0, 255) })
            let firstOnly = try await h.manager.loadImage(from: url, options: [.decodeFirstFrameOnly, .fromLoaderOnly],
                                                          context: ImageContext(transformer: .none))
            #expect(firstOnly.image.frames.count == 1)
        }
    }

    @Test("an animated avatar is square in every frame with transformAnimatedImage, and stays animated")
    func animatedAvatar() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("anim.gif", data: try Fixtures.data("gif/loop-3.gif"))
            let url = h.server.url("/files/anim.gif")
            let square = ImageContext(transformer: .use(.resize(to: PixelSize(width: 32, height: 32), fit: .aspectFill)))
            let avatar = try await h.manager.loadImage(from: url, options: [.transformAnimatedImage], context: square)
            #expect(avatar.image.isAnimated)
            #expect(avatar.image.frames.allSatisfy { $0.pixels.width == 32 && $0.pixels.height == 32 })
            let untouched = try await h.manager.loadImage(from: url, options: [.fromLoaderOnly], context: square)
            #expect(untouched.image.size != PixelSize(width: 32, height: 32))
        }
    }

    @Test("fromCacheOnly misses without a request; fromLoaderOnly loads despite the cache")
    func cacheOnlyAndLoaderOnly() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let url = h.server.url("/files/a.png")
            let miss = await LoadingTest.failure { try await h.manager.loadImage(from: url, options: [.fromCacheOnly]) }
            #expect(miss?.code == .notFoundInCache)
            #expect(h.server.log.requests.isEmpty)
            _ = try await h.manager.loadImage(from: url)
            let again = try await h.manager.loadImage(from: url, options: [.fromLoaderOnly])
            #expect(again.cacheType == .none)
            #expect(h.server.log.count("/files/a.png") == 2)
        }
    }

    @Test("queryMemoryData returns the stored bytes with a memory hit")
    func memoryData() async throws {
        try await ManagerHarness.with { h in
            let png = try ManagerTest.png(RGBA(9, 9, 9))
            h.server.serve("a.png", data: png)
            let url = h.server.url("/files/a.png")
            _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            let hit = try await h.manager.loadImage(from: url, options: [.queryMemoryData])
            #expect(hit.cacheType == .memory)
            #expect(hit.data == png)
            let syncHit = try await h.manager.loadImage(from: url, options: [.queryMemoryData, .queryMemoryDataSync])
            #expect(syncHit.data == png)
        }
    }

    @Test("events: progress, then finished; the callback form reports progress and completes once")
    func eventsAndCallback() async throws {
        try await ManagerHarness.with { h in
            let png = try ManagerTest.png(RGBA(5, 5, 5), width: 300, height: 300)
            h.server.serve("a.png", data: png)
            let task = h.manager.imageTask(from: h.server.url("/files/a.png"))
            var finished: ImageResult?
            for try await event in task.events {
                if case .finished(let result) = event { finished = result }
            }
            #expect(finished?.image.size == PixelSize(width: 300, height: 300))
            // The progress handler is registered before the load starts, so it sees every report.
            let calls = Locked(0)
            let received = Locked<[Int64]>([])
            let done = AsyncStream<Void>.makeStream()
            h.manager.loadImage(from: h.server.url("/files/a.png"), options: [.fromLoaderOnly],
                                progress: { report in received.withLock { $0.append(report.receivedBytes) } }) { result in
                calls.withLock { $0 += 1 }
                if case .success = result { done.continuation.yield() }
                done.continuation.finish()
            }
            for await _ in done.stream {}
            #expect(calls.withLock { $0 } == 1)
            let reports = received.withLock { $0 }
            #expect(reports.last == Int64(png.count))
            #expect(reports == reports.sorted())
        }
    }

    @Test("progressive JPEG over a slow route gives incremental previews, then the full image")
    func progressivePreviews() async throws {
        try await ManagerHarness.with { h in
            let jpeg = try Fixtures.data("incremental/progressive.jpg")
            h.server.serve("p.jpg", data: jpeg, contentType: "image/jpeg")
            // The built-in coders: the harness's counting coder would take JPEG over from the incremental path.
            let manager = ImageManager(cache: h.cache, loader: h.downloader, coders: .shared)
            let task = manager.imageTask(from: h.server.url("/slow/p.jpg?chunk=200&delayMs=5"), options: [.progressiveLoad])
            var previews = 0, final: ImageResult?
            for try await event in task.events {
                if case .preview(let image) = event {
                    #expect(image.flags.contains(.incremental))
                    previews += 1
                }
                if case .finished(let result) = event { final = result }
            }
            #expect(previews > 0)
            let reference = try ImageCoders.shared.decode(jpeg)
            #expect(final?.image.pixels.bytes == reference.pixels.bytes)
        }
    }

    @Test("the options processor rewrites options and context per URL")
    func optionsProcessor() async throws {
        let configuration = ImageManager.Configuration(optionsProcessor: { url, options, context in
            var context = context
            if url.path.hasSuffix("thumb.png") { context.thumbnailPixelSize = PixelSize(width: 10, height: 10) }
            return (options, context)
        })
        try await ManagerHarness.with(configuration: configuration) { h in
            h.server.serve("thumb.png", data: try ManagerTest.png(RGBA(7, 7, 7), width: 100, height: 100))
            let result = try await h.manager.loadImage(from: h.server.url("/files/thumb.png"))
            #expect(result.image.size == PixelSize(width: 10, height: 10))
        }
    }

    @Test("pipeline events and metrics name each stage")
    func pipelineEvents() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(5, 6, 7)))
            let url = h.server.url("/files/a.png")
            let stream = h.manager.eventStream()
            _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache],
                                              context: ImageContext(transformer: .use(CountingTransformer())))
            var seen: [String] = []
            for await event in stream {
                switch event {
                case .started: seen.append("started")
                case .cacheMiss: seen.append("miss")
                case .loaded: seen.append("loaded")
                case .decoded: seen.append("decoded")
                case .transformed: seen.append("transformed")
                case .stored: seen.append("stored")
                case .cacheHit: seen.append("hit")
                case .finished(_, let error):
                    seen.append(error == nil ? "finished" : "failed")
                }
                if seen.last == "finished" { break }
            }
            #expect(seen == ["started", "miss", "loaded", "decoded", "transformed", "stored", "stored", "finished"])
        }
    }
}
