import Foundation
import Testing
@testable import WebImage

/// An image cache on a temporary folder with the test coder.
struct ImageCacheFixture {
    let folder: TemporaryFolder
    let cache: ImageCache
    let coder: TestRawCoder

    init(serializer: any CacheSerializer = DefaultCacheSerializer(), memoryLimit: Int = 1 << 20) throws {
        folder = try TemporaryFolder()
        let (coders, coder) = TestImages.coders()
        self.coder = coder
        cache = ImageCache(
            memory: MemoryCache(limits: .init(costLimit: memoryLimit)),
            disk: DiskCache(folder: folder.url, configuration: .init(sweepInterval: nil)),
            coders: coders, serializer: serializer)
    }
}

@Suite("ImageCache")
struct ImageCacheTests {
    @Test("a disk hit is decoded once and fills the memory cache")
    func diskHitFillsMemory() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let data = try TestImages.solidData(RGBA(10, 20, 30), width: 3, height: 2)
        try await cache.store(nil, data: data, forKey: "https://x/a.png", in: .disk)
        #expect(cache.memoryImage(forKey: "https://x/a.png") == nil)

        let first = try #require(await cache.query(forKey: "https://x/a.png"))
        #expect(first.cacheType == .disk)
        #expect(first.image?.size == PixelSize(width: 3, height: 2))
        #expect(first.image?.pixels[2, 1] == RGBA(10, 20, 30))
        #expect(first.data == nil)
        #expect(first.metadata?.payloadLength == data.count)
        #expect(fixture.coder.decodeCount == 1)

        let second = try #require(await cache.query(forKey: "https://x/a.png"))
        #expect(second.cacheType == .memory)
        #expect(second.image?.pixels[0, 0] == RGBA(10, 20, 30))
        #expect(fixture.coder.decodeCount == 1)
        #expect(cache.memoryImage(forKey: "https://x/a.png") != nil)
    }

    @Test("query options: the data with a memory hit, bytes without decoding, no memory fill, the key's @2x")
    func queryOptions() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let data = try TestImages.solidData(RGBA(1, 1, 1))
        let image = try TestImages.solid(RGBA(1, 1, 1))
        try await cache.store(image, data: data, forKey: "k", in: .all)

        let withData = try #require(await cache.query(forKey: "k", in: .all, options: .init(includeData: true)))
        #expect(withData.cacheType == .memory && withData.data == data && withData.metadata?.key == "k")

        let bytesOnly = try #require(await cache.query(forKey: "k", in: .disk, options: .init(skipDecoding: true)))
        #expect(bytesOnly.image == nil && bytesOnly.data == data && bytesOnly.cacheType == .disk)
        #expect(fixture.coder.decodeCount == 0)

        try await cache.store(nil, data: data, forKey: "icon@2x.png", in: .disk)
        let noFill = try #require(await cache.query(forKey: "icon@2x.png", in: .all, options: .init(fillsMemory: false)))
        #expect(noFill.image?.scale == 2)
        #expect(cache.memoryImage(forKey: "icon@2x.png") == nil)

        #expect(await cache.query(forKey: "k", in: .none) == nil)
        #expect(await cache.query(forKey: "absent") == nil)
    }

    @Test("the synchronous query answers like the asynchronous one")
    func synchronousQuery() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        try await cache.store(nil, data: try TestImages.solidData(RGBA(5, 6, 7)), forKey: "k", in: .disk)
        let hit = try #require(cache.querySynchronously(forKey: "k", in: .all, options: .init()))
        #expect(hit.cacheType == .disk && hit.image?.pixels[1, 1] == RGBA(5, 6, 7))
        #expect(cache.querySynchronously(forKey: "k", in: .all, options: .init())?.cacheType == .memory)
        #expect(cache.querySynchronously(forKey: "other", in: .all, options: .init()) == nil)
    }

    @Test("store into memory, disk or both; remove and clear by type; contains reports where")
    func storeTypes() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let image = try TestImages.solid(RGBA(0, 0, 255))
        let data = try TestImages.solidData(RGBA(0, 0, 255))
        try await cache.store(image, data: data, forKey: "memory-only", in: .memory)
        try await cache.store(image, data: data, forKey: "disk-only", in: .disk)
        try await cache.store(image, data: data, forKey: "both", in: .all)
        #expect(await cache.contains(forKey: "memory-only", in: .all) == .memory)
        #expect(await cache.contains(forKey: "disk-only", in: .all) == .disk)
        #expect(await cache.contains(forKey: "disk-only", in: .memory) == .none)
        #expect(await cache.contains(forKey: "both", in: .all) == .memory)
        #expect(await cache.diskUsage().entries == 2)

        await cache.remove(forKey: "both", from: .memory)
        #expect(await cache.contains(forKey: "both", in: .all) == .disk)
        await cache.remove(forKey: "both")
        #expect(await cache.contains(forKey: "both", in: .all) == .none)

        await cache.clear(.disk)
        #expect(await cache.diskUsage() == (0, 0))
        #expect(cache.memoryImage(forKey: "memory-only") != nil)
        await cache.clear(.memory)
        #expect(cache.memoryImage(forKey: "memory-only") == nil)
    }

    @Test("the default serializer stores the original bytes, else GIF / PNG / JPEG by the image's kind")
    func defaultSerializer() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let original = try TestImages.solidData(RGBA(1, 2, 3))
        try await cache.store(try TestImages.solid(RGBA(1, 2, 3)), data: original, forKey: "original", in: .disk)
        #expect(cache.disk.data(forKey: "original") == original)
        #expect(fixture.coder.encodeCount == 0)

        let opaque = try TestImages.solid(RGBA(1, 2, 3))
        let translucent = try TestImages.solid(RGBA(1, 2, 3, 128))
        let frame = try PixelBuffer(width: 2, height: 2, filledWith: RGBA(4, 5, 6))
        let animated = Image(frames: [ImageFrame(pixels: frame, duration: 0.1), ImageFrame(pixels: frame, duration: 0.1)])
        for (key, image, format) in [("opaque", opaque, ImageFormat.jpeg), ("alpha", translucent, .png),
                                     ("animated", animated, .gif)] {
            #expect(DefaultCacheSerializer.storageFormat(for: image) == format)
            try await cache.store(image, data: nil, forKey: key, in: .disk)
            let stored = try #require(cache.disk.data(forKey: key))
            #expect(TestRawCoder.format(of: stored) == format)
        }
        #expect(fixture.coder.encodeCount == 3)
        let decoded = try #require(await cache.query(forKey: "animated", in: .disk))
        #expect(decoded.image?.frames.count == 2)
    }

    @Test("a custom serializer decides the bytes, or keeps the entry off the disk")
    func customSerializer() async throws {
        let replacement = try TestImages.solidData(RGBA(7, 7, 7))
        let serializer = ClosureCacheSerializer { image, original, key, _ in
            key.hasPrefix("skip") ? nil : replacement
        }
        let fixture = try ImageCacheFixture(serializer: serializer)
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let image = try TestImages.solid(RGBA(1, 1, 1))
        try await cache.store(image, data: Data("original".utf8), forKey: "keep", in: .all)
        try await cache.store(image, data: Data("original".utf8), forKey: "skip-me", in: .all)
        #expect(cache.disk.data(forKey: "keep") == replacement)
        #expect(cache.disk.data(forKey: "skip-me") == nil)
        #expect(cache.memoryImage(forKey: "skip-me") != nil)
    }

    @Test("a failed disk write throws io; the image is in memory all the same")
    func diskFailure() async throws {
        let parent = try TemporaryFolder()
        defer { parent.remove() }
        let blocker = parent.url.appendingPathComponent("file")
        try Data("not a folder".utf8).write(to: blocker)
        let (coders, _) = TestImages.coders()
        let cache = ImageCache(folder: blocker.appendingPathComponent("cache"), diskConfiguration: .init(sweepInterval: nil),
                               coders: coders)
        let image = try TestImages.solid(RGBA(3, 3, 3))
        await #expect {
            try await cache.store(image, data: Data("bytes".utf8), forKey: "k")
        } throws: { ($0 as? ImageError)?.code == .io }
        #expect(cache.memoryImage(forKey: "k")?.pixels[0, 0] == RGBA(3, 3, 3))
        #expect(await cache.query(forKey: "k")?.cacheType == .memory)
    }

    @Test("bytes no coder can decode read as a miss, and the entry stays")
    func undecodableEntry() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        try await fixture.cache.store(nil, data: Data("not an image".utf8), forKey: "k", in: .disk)
        #expect(await fixture.cache.query(forKey: "k") == nil)
        #expect(fixture.cache.disk.contains("k"))
    }

    @Test("removeExpired reaches memory and disk; validators can be refreshed")
    func expiryAndValidators() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let (coders, _) = TestImages.coders()
        let cache = ImageCache(
            memory: MemoryCache(limits: .init(costLimit: 1 << 20, ageLimit: 50), clock: clock.cacheClock),
            disk: DiskCache(folder: folder.url, configuration: .init(maxAge: 100, sweepInterval: nil,
                                                                     clock: clock.cacheClock)),
            coders: coders)
        let data = try TestImages.solidData(RGBA(2, 2, 2))
        try await cache.store(try TestImages.solid(RGBA(2, 2, 2)), data: data, forKey: "k", in: .all,
                              validators: HTTPValidators(etag: "one"))
        #expect(try await cache.updateValidators(HTTPValidators(etag: "two"), forKey: "k"))
        #expect(await cache.query(forKey: "k", in: .disk, options: .init(skipDecoding: true))?.metadata?.validators.etag == "two")
        clock.advance(by: 150)
        let report = await cache.removeExpired()
        #expect(report.expiredEntries == 1)
        #expect(cache.memory.count == 0)
        #expect(await cache.query(forKey: "k") == nil)
    }

    @Test("concurrent stores and queries of overlapping keys")
    func concurrencySmoke() async throws {
        let fixture = try ImageCacheFixture(memoryLimit: 2_000)
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let colors = (0..<10).map { RGBA(UInt8($0 * 20), 0, 0) }
        let datas = try colors.map { try TestImages.solidData($0, width: 5, height: 5) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<30 {
                        let index = (worker + round) % 10
                        if round % 3 == 0 {
                            try await cache.store(nil, data: datas[index], forKey: "k\(index)", in: .disk)
                        } else if let hit = await cache.query(forKey: "k\(index)") {
                            #expect(hit.image?.pixels[4, 4] == colors[index])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(cache.memory.totalCost <= 2_000)
        for index in 0..<10 { #expect(await cache.query(forKey: "k\(index)")?.image?.pixels[0, 0] == colors[index]) }
    }
}
