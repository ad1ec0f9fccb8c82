import Foundation
import Testing
@testable import WebImage

/// An image cache on a temporary folder with the test coder.
struct ImageCacheFixture {
    let folder: TemporaryFolder
    let cache: ImageCache
    let coder: TestRawCoder

    init(memoryLimit: Int = 1 << 20) throws {
        folder = try TemporaryFolder()
        let (coders, coder) = TestImages.coders()
        self.coder = coder
        cache = ImageCache(
            memory: MemoryCache(limits: .init(costLimit: memoryLimit)),
            disk: DiskCache(folder: folder.url, configuration: .init(sweepInterval: nil)),
            coders: coders)
    }
}

@Suite("ImageCache")
struct ImageCacheTests {
    @Test("a store puts the image in memory and the bytes on disk; each half answers its own question, undecoded")
    func halves() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let data = try TestImages.solidData(RGBA(10, 20, 30), width: 3, height: 2)
        let image = try TestImages.solid(RGBA(10, 20, 30))
        try await cache.store(image, data: data, forKey: "https://x/a.png")
        #expect(cache.image(forKey: "https://x/a.png")?.pixels[0, 0] == RGBA(10, 20, 30))
        let stored = try #require(await cache.cachedData(forKey: "https://x/a.png"))
        #expect(stored.data == data)
        #expect(stored.metadata?.payloadLength == data.count && stored.metadata?.key == "https://x/a.png")

        cache.removeImage(forKey: "https://x/a.png")
        #expect(cache.image(forKey: "https://x/a.png") == nil)
        #expect(await cache.cachedData(forKey: "https://x/a.png")?.data == data)
        #expect(cache.image(forKey: "https://x/a.png") == nil, "reading bytes never fills memory")
        #expect(fixture.coder.decodeCount == 0, "the cache never decodes")
        #expect(await cache.cachedData(forKey: "absent") == nil)
    }

    @Test("the synchronous data lookup answers like the asynchronous one")
    func synchronousLookup() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let data = try TestImages.solidData(RGBA(5, 6, 7))
        try await cache.storeData(data, forKey: "k", validators: HTTPValidators(etag: "\"e\""))
        let hit = try #require(cache.cachedDataSynchronously(forKey: "k"))
        #expect(hit.data == data && hit.metadata?.validators.etag == "\"e\"")
        #expect(cache.cachedDataSynchronously(forKey: "other") == nil)
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
        #expect(cache.image(forKey: "memory-only") != nil)
        await cache.clear(.memory)
        #expect(cache.image(forKey: "memory-only") == nil)
    }

    @Test("an image stored with bytes keeps them; without, PNG whatever its kind (lossless)")
    func storedBytes() async throws {
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
        for (key, image, format) in [("opaque", opaque, ImageFormat.png), ("alpha", translucent, .png),
                                     ("animated", animated, .png)] {
            #expect(CacheSerializer.storageFormat(for: image) == format)
            try await cache.store(image, data: nil, forKey: key, in: .disk)
            let stored = try #require(cache.disk.data(forKey: key))
            #expect(TestRawCoder.format(of: stored) == format)
        }
        #expect(fixture.coder.encodeCount == 3)
        let bytes = try #require(await cache.cachedData(forKey: "animated")).data
        #expect(try cache.coders.decode(bytes).frames.count == 2)
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
        #expect(cache.image(forKey: "k")?.pixels[0, 0] == RGBA(3, 3, 3))
        #expect(await cache.contains(forKey: "k") == .memory)
    }

    @Test("bytes that are no image come back exactly: judging them is the manager's work")
    func bytesAreBytes() async throws {
        let fixture = try ImageCacheFixture()
        defer { fixture.folder.remove() }
        try await fixture.cache.storeData(Data("not an image".utf8), forKey: "k", validators: .none)
        #expect(await fixture.cache.cachedData(forKey: "k")?.data == Data("not an image".utf8))
        #expect(await fixture.cache.containsData(forKey: "k"))
        #expect(fixture.coder.decodeCount == 0)
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
        #expect(await cache.cachedData(forKey: "k")?.metadata?.validators.etag == "two")
        #expect(try await cache.updateValidators(HTTPValidators(etag: "two"), forKey: "absent") == false)
        clock.advance(by: 150)
        let report = await cache.removeExpired()
        #expect(report.expiredEntries == 1)
        #expect(cache.memory.count == 0)
        #expect(await cache.contains(forKey: "k") == .none)
    }

    @Test("concurrent stores and lookups of overlapping keys")
    func concurrencySmoke() async throws {
        let fixture = try ImageCacheFixture(memoryLimit: 2_000)
        defer { fixture.folder.remove() }
        let cache = fixture.cache
        let colors = (0..<10).map { RGBA(UInt8($0 * 20), 0, 0) }
        let images = try colors.map { try TestImages.solid($0, width: 5, height: 5) }
        let datas = try colors.map { try TestImages.solidData($0, width: 5, height: 5) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<30 {
                        let index = (worker + round) % 10
                        if round % 3 == 0 {
                            try await cache.store(images[index], data: datas[index], forKey: "k\(index)")
                        } else {
                            if let image = cache.image(forKey: "k\(index)") {
                                #expect(image.pixels[4, 4] == colors[index])
                            }
                            if let hit = await cache.cachedData(forKey: "k\(index)") { #expect(hit.data == datas[index]) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(cache.memory.totalCost <= 2_000)
        for index in 0..<10 { #expect(await cache.cachedData(forKey: "k\(index)")?.data == datas[index]) }
    }
}
