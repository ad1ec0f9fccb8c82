import Foundation
import Testing
@testable import WebImage

/// A cache that records what it was asked and answers from a fixed set of keys.
final class RecordingCache: ImageCaching {
    let name: String
    private let keys: Locked<Set<String>>
    private let log: Locked<[String]>
    let failsStores: Bool

    init(_ name: String, keys: Set<String> = [], failsStores: Bool = false) {
        self.name = name
        self.keys = Locked(keys)
        self.log = Locked([])
        self.failsStores = failsStores
    }

    var calls: [String] { log.withLock { $0 } }
    var storedKeys: Set<String> { keys.withLock { $0 } }

    private func record(_ call: String) { log.withLock { $0.append(call) } }

    func query(forKey key: String, in types: ImageCacheType, options: ImageCacheQueryOptions) async -> ImageCacheResult? {
        querySynchronously(forKey: key, in: types, options: options)
    }

    func querySynchronously(forKey key: String, in types: ImageCacheType, options: ImageCacheQueryOptions)
        -> ImageCacheResult? {
        record("query \(key)")
        guard keys.withLock({ $0.contains(key) }) else { return nil }
        return ImageCacheResult(image: nil, data: Data(name.utf8), cacheType: .disk)
    }

    func store(_ image: Image?, data: Data?, forKey key: String, in types: ImageCacheType,
               validators: HTTPValidators) async throws {
        record("store \(key)")
        if failsStores { throw ImageError(.io, "\(name) is full") }
        keys.withLock { _ = $0.insert(key) }
    }

    func remove(forKey key: String, from types: ImageCacheType) async {
        record("remove \(key)")
        keys.withLock { _ = $0.remove(key) }
    }

    func contains(forKey key: String, in types: ImageCacheType) async -> ImageCacheType {
        record("contains \(key)")
        return keys.withLock { $0.contains(key) } ? .disk : .none
    }

    func clear(_ types: ImageCacheType) async {
        record("clear")
        keys.withLock { $0.removeAll() }
    }
}

@Suite("ImageCaches")
struct ImageCachesTests {
    /// Three caches, lowest priority first; "x" is in low and high, "m" only in middle.
    func makeChain(_ policies: ImageCaches.Policies = .init()) -> (ImageCaches, RecordingCache, RecordingCache, RecordingCache) {
        let low = RecordingCache("low", keys: ["x", "l"])
        let middle = RecordingCache("middle", keys: ["m"])
        let high = RecordingCache("high", keys: ["x"])
        return (ImageCaches(caches: [low, middle, high], policies: policies), low, middle, high)
    }

    func source(_ result: ImageCacheResult?) -> String? {
        result?.data.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("SDWebImage's default policies")
    func defaults() {
        #expect(ImageCaches.Policies() == ImageCaches.Policies(
            query: .serial, store: .highestOnly, remove: .concurrent, contains: .serial, clear: .concurrent))
    }

    @Test("serial query: highest priority first, stopping at the first hit")
    func serialQuery() async {
        let (caches, low, middle, high) = makeChain()
        #expect(source(await caches.query(forKey: "x")) == "high")
        #expect(high.calls == ["query x"] && middle.calls.isEmpty && low.calls.isEmpty)
        #expect(source(await caches.query(forKey: "l")) == "low")
        #expect(middle.calls == ["query l"] && low.calls == ["query l"])
        #expect(await caches.query(forKey: "none") == nil)
        #expect(source(caches.querySynchronously(forKey: "m", in: .all, options: .init())) == "middle")
    }

    @Test("highest-only and lowest-only queries ask one cache")
    func singleCacheQueries() async {
        let (highest, _, middle, _) = makeChain(.init(query: .highestOnly))
        #expect(await highest.query(forKey: "m") == nil)
        #expect(middle.calls.isEmpty)
        let (lowest, low, _, high) = makeChain(.init(query: .lowestOnly))
        #expect(source(await lowest.query(forKey: "x")) == "low")
        #expect(high.calls.isEmpty && low.calls == ["query x"])
    }

    @Test("concurrent query asks every cache and returns a hit")
    func concurrentQuery() async {
        let (caches, low, middle, high) = makeChain(.init(query: .concurrent, contains: .concurrent))
        #expect(source(await caches.query(forKey: "m")) == "middle")
        #expect(await caches.query(forKey: "none") == nil)
        #expect(low.calls.contains("query none") && middle.calls.contains("query none") && high.calls.contains("query none"))
        #expect(await caches.contains(forKey: "l", in: .all) == .disk)
        #expect(await caches.contains(forKey: "none", in: .all) == .none)
    }

    @Test("stores: highest only by default; serial and concurrent reach every cache; failures surface")
    func stores() async throws {
        let (highestOnly, low, middle, high) = makeChain()
        try await highestOnly.store(nil, data: Data(), forKey: "new")
        #expect(high.storedKeys.contains("new") && !middle.storedKeys.contains("new") && !low.storedKeys.contains("new"))

        for policy in [ImageCaches.Policy.serial, .concurrent] {
            let (caches, low, middle, high) = makeChain(.init(store: policy))
            try await caches.store(nil, data: Data(), forKey: "new")
            #expect([low, middle, high].allSatisfy { $0.storedKeys.contains("new") })
        }
        let (serial, lowSerial, middleSerial, highSerial) = makeChain(.init(store: .serial))
        try await serial.store(nil, data: Data(), forKey: "order")
        #expect([highSerial.calls, middleSerial.calls, lowSerial.calls] == [["store order"], ["store order"], ["store order"]])

        let failing = RecordingCache("failing", failsStores: true)
        let healthy = RecordingCache("healthy")
        let mixed = ImageCaches(caches: [healthy, failing], policies: .init(store: .serial))
        let noImage: Image? = nil
        await #expect(throws: ImageError.self) { try await mixed.store(noImage, data: Data(), forKey: "k") }
        #expect(healthy.storedKeys == ["k"], "the other caches are still stored")
        _ = (low, middle)
    }

    @Test("remove and clear reach every cache by default; contains goes serially")
    func removeClearContains() async {
        let (caches, low, middle, high) = makeChain()
        await caches.remove(forKey: "x")
        #expect(!low.storedKeys.contains("x") && !high.storedKeys.contains("x"))
        #expect(await caches.contains(forKey: "m", in: .all) == .disk)
        #expect(high.calls.last == "contains m" && middle.calls.last == "contains m" && !low.calls.contains("contains m"))
        await caches.clear(.all)
        #expect([low, middle, high].allSatisfy { $0.storedKeys.isEmpty && $0.calls.last == "clear" })
    }

    @Test("caches can be added and removed; the last added has the highest priority")
    func membership() async {
        let caches = ImageCaches()
        #expect(await caches.query(forKey: "x") == nil)
        let first = RecordingCache("first", keys: ["x"])
        let second = RecordingCache("second", keys: ["x"])
        caches.add(first)
        caches.add(second)
        #expect(source(await caches.query(forKey: "x")) == "second")
        caches.remove(second)
        #expect(source(await caches.query(forKey: "x")) == "first")
        #expect(caches.caches.count == 1)
    }

    @Test("real image caches chain: a miss in the fast one is found in the shared one")
    func realCaches() async throws {
        let fast = try ImageCacheFixture()
        defer { fast.folder.remove() }
        let shared = try ImageCacheFixture()
        defer { shared.folder.remove() }
        let chain = ImageCaches(caches: [shared.cache, fast.cache], policies: .init(store: .serial))
        try await shared.cache.store(nil, data: try TestImages.solidData(RGBA(8, 8, 8)), forKey: "k", in: .disk)
        let hit = try #require(await chain.query(forKey: "k"))
        #expect(hit.cacheType == .disk && hit.image?.pixels[0, 0] == RGBA(8, 8, 8))
        try await chain.store(try TestImages.solid(RGBA(9, 9, 9)), data: nil, forKey: "both", in: .memory)
        #expect(fast.cache.memoryImage(forKey: "both") != nil && shared.cache.memoryImage(forKey: "both") != nil)
    }
}
