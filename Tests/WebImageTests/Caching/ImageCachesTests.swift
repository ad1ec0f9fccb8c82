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

    // Memory: a hit only for keys stored as images, so that data tests see the data path alone.
    private let images = Locked<[String: Image]>([:])

    func image(forKey key: String) -> Image? {
        record("image \(key)")
        return images.withLock { $0[key] }
    }

    func storeImage(_ image: Image, forKey key: String) {
        record("storeImage \(key)")
        images.withLock { $0[key] = image }
    }

    func removeImage(forKey key: String) {
        record("removeImage \(key)")
        images.withLock { _ = $0.removeValue(forKey: key) }
    }

    func removeAllImages() {
        record("removeAllImages")
        images.withLock { $0.removeAll() }
    }

    // Data: answers with the cache's name for every key it holds.
    func cachedData(forKey key: String) async -> CachedImageData? {
        cachedDataSynchronously(forKey: key)
    }

    func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        record("query \(key)")
        guard keys.withLock({ $0.contains(key) }) else { return nil }
        return CachedImageData(data: Data(name.utf8))
    }

    func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        record("store \(key)")
        if failsStores { throw ImageError(.io, "\(name) is full") }
        keys.withLock { _ = $0.insert(key) }
    }

    func removeData(forKey key: String) async {
        record("remove \(key)")
        keys.withLock { _ = $0.remove(key) }
    }

    func containsData(forKey key: String) async -> Bool {
        record("contains \(key)")
        return keys.withLock { $0.contains(key) }
    }

    func removeAllData() async {
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

    func source(_ result: CachedImageData?) -> String? {
        result.map { String(decoding: $0.data, as: UTF8.self) }
    }

    @Test("SDWebImage's default policies")
    func defaults() {
        #expect(ImageCaches.Policies() == ImageCaches.Policies(
            query: .serial, store: .highestOnly, remove: .concurrent, contains: .serial, clear: .concurrent))
    }

    @Test("serial query: highest priority first, stopping at the first hit")
    func serialQuery() async {
        let (caches, low, middle, high) = makeChain()
        #expect(source(await caches.cachedData(forKey: "x")) == "high")
        #expect(high.calls == ["query x"] && middle.calls.isEmpty && low.calls.isEmpty)
        #expect(source(await caches.cachedData(forKey: "l")) == "low")
        #expect(middle.calls == ["query l"] && low.calls == ["query l"])
        #expect(await caches.cachedData(forKey: "none") == nil)
        #expect(source(caches.cachedDataSynchronously(forKey: "m")) == "middle")
    }

    @Test("highest-only and lowest-only queries ask one cache")
    func singleCacheQueries() async {
        let (highest, _, middle, _) = makeChain(.init(query: .highestOnly))
        #expect(await highest.cachedData(forKey: "m") == nil)
        #expect(middle.calls.isEmpty)
        let (lowest, low, _, high) = makeChain(.init(query: .lowestOnly))
        #expect(source(await lowest.cachedData(forKey: "x")) == "low")
        #expect(high.calls.isEmpty && low.calls == ["query x"])
    }

    @Test("concurrent query asks every cache and returns a hit")
    func concurrentQuery() async {
        let (caches, low, middle, high) = makeChain(.init(query: .concurrent, contains: .concurrent))
        #expect(source(await caches.cachedData(forKey: "m")) == "middle")
        #expect(await caches.cachedData(forKey: "none") == nil)
        #expect(low.calls.contains("query none") && middle.calls.contains("query none") && high.calls.contains("query none"))
        #expect(await caches.contains(forKey: "l", in: .all) == .disk)
        #expect(await caches.contains(forKey: "none", in: .all) == .none)
    }

    @Test("stores: highest only by default; serial and concurrent reach every cache; failures surface")
    func stores() async throws {
        let (highestOnly, low, middle, high) = makeChain()
        try await highestOnly.storeData(Data(), forKey: "new", validators: .none)
        #expect(high.storedKeys.contains("new") && !middle.storedKeys.contains("new") && !low.storedKeys.contains("new"))

        for policy in [ImageCaches.Policy.serial, .concurrent] {
            let (caches, low, middle, high) = makeChain(.init(store: policy))
            try await caches.storeData(Data(), forKey: "new", validators: .none)
            #expect([low, middle, high].allSatisfy { $0.storedKeys.contains("new") })
        }
        let (serial, lowSerial, middleSerial, highSerial) = makeChain(.init(store: .serial))
        try await serial.storeData(Data(), forKey: "order", validators: .none)
        #expect([highSerial.calls, middleSerial.calls, lowSerial.calls] == [["store order"], ["store order"], ["store order"]])

        let failing = RecordingCache("failing", failsStores: true)
        let healthy = RecordingCache("healthy")
        let mixed = ImageCaches(caches: [healthy, failing], policies: .init(store: .serial))
        await #expect(throws: ImageError.self) { try await mixed.storeData(Data(), forKey: "k", validators: .none) }
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
        #expect([low, middle, high].allSatisfy { $0.storedKeys.isEmpty && $0.calls.suffix(2).contains("clear") })
        #expect([low, middle, high].allSatisfy { $0.calls.suffix(2).contains("removeAllImages") })
    }

    @Test("caches can be added and removed; the last added has the highest priority")
    func membership() async {
        let caches = ImageCaches()
        #expect(await caches.cachedData(forKey: "x") == nil)
        let first = RecordingCache("first", keys: ["x"])
        let second = RecordingCache("second", keys: ["x"])
        caches.add(first)
        caches.add(second)
        #expect(source(await caches.cachedData(forKey: "x")) == "second")
        caches.remove(second)
        #expect(source(await caches.cachedData(forKey: "x")) == "first")
        #expect(caches.caches.count == 1)
    }

    @Test("real image caches chain: a miss in the fast one is found in the shared one")
    func realCaches() async throws {
        let fast = try ImageCacheFixture()
        defer { fast.folder.remove() }
        let shared = try ImageCacheFixture()
        defer { shared.folder.remove() }
        let chain = ImageCaches(caches: [shared.cache, fast.cache], policies: .init(store: .serial))
        let bytes = try TestImages.solidData(RGBA(8, 8, 8))
        try await shared.cache.storeData(bytes, forKey: "k", validators: .none)
        #expect(await chain.cachedData(forKey: "k")?.data == bytes)
        #expect(chain.image(forKey: "k") == nil)
        chain.storeImage(try TestImages.solid(RGBA(9, 9, 9)), forKey: "both")
        #expect(fast.cache.image(forKey: "both") != nil && shared.cache.image(forKey: "both") != nil)
        #expect(chain.image(forKey: "both")?.pixels[0, 0] == RGBA(9, 9, 9))
        #expect(await chain.contains(forKey: "k") == .disk)
    }

    @Test("memory questions follow the same policies: the highest priority first, stores to the highest only")
    func memoryPolicies() throws {
        let (caches, low, middle, high) = makeChain()
        let image = try TestImages.solid(RGBA(1, 1, 1))
        caches.storeImage(image, forKey: "i")
        #expect(high.calls == ["storeImage i"] && middle.calls.isEmpty && low.calls.isEmpty)
        low.storeImage(try TestImages.solid(RGBA(2, 2, 2)), forKey: "only-low")
        #expect(caches.image(forKey: "only-low")?.pixels[0, 0] == RGBA(2, 2, 2))
        #expect(high.calls.last == "image only-low" && middle.calls.last == "image only-low")
        caches.removeImage(forKey: "i")
        #expect(high.image(forKey: "i") == nil)
    }
}
