import Foundation
import Testing
@testable import WebImage

/// A tier whose device is gone: every lookup misses and every write fails, as a full or unplugged disk would.
final class BrokenTier: ImageDataCaching {
    private let attempts = Locked(0)

    /// Lookups and writes it was asked for.
    var attemptCount: Int { attempts.withLock { $0 } }

    private func attempt() { attempts.withLock { $0 += 1 } }

    func cachedData(forKey key: String) async -> CachedImageData? {
        attempt()
        return nil
    }

    func cachedDataSynchronously(forKey key: String) -> CachedImageData? {
        attempt()
        return nil
    }

    func storeData(_ data: Data, forKey key: String, validators: HTTPValidators) async throws {
        attempt()
        throw ImageError(.io, "the device is gone")
    }

    func removeData(forKey key: String) async { attempt() }
    func containsData(forKey key: String) async -> Bool { false }
    func removeAllData() async { attempt() }
}

/// The chain of byte tiers: read-through with back-fill into the faster tiers, write-through to the tiers a store
/// names, a failing tier costing only itself, and lookups from many tasks at once.
@Suite struct DataCacheTiersTests {
    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<4_000).map { UInt8(truncatingIfNeeded: $0) })

    private func chain(_ folder: TemporaryFolder, memoryBytes: Int = 1 << 20, diskBackFilled: Bool = true)
        -> (DataCacheTiers, MemoryDataCache, DiskDataCache)
    {
        let memory = MemoryDataCache(bytes: memoryBytes)
        let disk = DiskDataCache(disk: DiskCache(folder: folder.url))
        let tiers = DataCacheTiers([.init(memory, kind: .memory), .init(disk, kind: .disk, isBackFilled: diskBackFilled)])
        return (tiers, memory, disk)
    }

    @Test func aHitInASlowerTierIsCopiedIntoTheFasterOnes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (tiers, memory, disk) = chain(folder)
        let validators = HTTPValidators(etag: "\"a\"", lastModified: "Wed, 25 Nov 2026 10:00:00 GMT")
        try await disk.storeData(png, forKey: "k", validators: validators)
        #expect(await memory.cachedData(forKey: "k") == nil)

        let first = try #require(await tiers.lookup(forKey: "k"))
        #expect(first.index == 1 && first.kind == .disk)
        #expect(first.entry.data == png && first.entry.metadata?.validators == validators)
        // Back-filled with the disk's metadata as it was (format and validators).
        let copied = try #require(await memory.cachedData(forKey: "k"))
        #expect(copied.data == png && copied.tier == .memory)
        #expect(copied.metadata?.format == .png && copied.metadata?.validators == validators)

        let second = try #require(await tiers.lookup(forKey: "k"))
        #expect(second.index == 0 && second.kind == .memory && second.entry.data == png)
        #expect(await tiers.cachedData(forKey: "k")?.tier == .memory)
        #expect(await tiers.lookup(forKey: "absent") == nil)
    }

    @Test func aLookupFromALaterTierStillFillsTheTiersBeforeIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (tiers, memory, disk) = chain(folder)
        try await disk.storeData(png, forKey: "k", validators: .none)
        #expect(await tiers.lookup(forKey: "k", from: 1)?.kind == .disk)
        #expect(await memory.containsData(forKey: "k"))
        #expect(await tiers.lookup(forKey: "k", from: 2) == nil)
    }

    @Test func aTierThatTakesNoBackFillIsLeftAlone() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let memory = MemoryDataCache(bytes: 1 << 20)
        let disk = DiskDataCache(disk: DiskCache(folder: folder.url))
        let slowest = MemoryDataCache(bytes: 1 << 20)
        let tiers = DataCacheTiers([.init(memory, kind: .memory), .init(disk, kind: .disk, isBackFilled: false),
                                    .init(slowest, kind: .remote)])
        try await slowest.storeData(png, forKey: "k", validators: .none)
        #expect(await tiers.lookup(forKey: "k")?.kind == .remote)
        #expect(await memory.containsData(forKey: "k"))
        #expect(await disk.containsData(forKey: "k") == false)
    }

    @Test func aStoreReachesEveryTierOrOnlyTheKindsNamed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (tiers, memory, disk) = chain(folder)
        try await tiers.storeData(png, forKey: "all", validators: HTTPValidators(etag: "\"e\""))
        #expect(await memory.cachedData(forKey: "all")?.data == png)
        #expect(await disk.cachedData(forKey: "all")?.metadata?.validators.etag == "\"e\"")

        try await tiers.store(png, forKey: "disk only", validators: .none, in: .disk)
        #expect(await memory.containsData(forKey: "disk only") == false)
        #expect(await disk.containsData(forKey: "disk only"))
        try await tiers.store(png, forKey: "memory only", validators: .none, in: .memory)
        #expect(await memory.containsData(forKey: "memory only"))
        #expect(await disk.containsData(forKey: "memory only") == false)

        #expect(try await tiers.updateValidators(HTTPValidators(etag: "\"f\""), forKey: "all"))
        #expect(await memory.cachedData(forKey: "all")?.metadata?.validators.etag == "\"f\"")
        #expect(await disk.cachedData(forKey: "all")?.metadata?.validators.etag == "\"f\"")

        await tiers.removeData(forKey: "all")
        #expect(await tiers.containsData(forKey: "all") == false)
        await tiers.removeAllData()
        #expect(await tiers.containsData(forKey: "disk only") == false)
        #expect(await tiers.containsData(forKey: "memory only") == false)
    }

    @Test func aFailingTierCostsOnlyItself() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let memory = MemoryDataCache(bytes: 1 << 20)
        let broken = BrokenTier()
        let disk = DiskDataCache(disk: DiskCache(folder: folder.url))
        let tiers = DataCacheTiers([.init(memory, kind: .memory), .init(broken, kind: .disk),
                                    .init(disk, kind: .remote)])
        // The store reaches the tiers around the broken one, then reports its failure.
        await #expect(throws: ImageError.self) {
            try await tiers.storeData(png, forKey: "k", validators: .none)
        }
        #expect(await memory.containsData(forKey: "k"))
        #expect(await disk.containsData(forKey: "k"))
        // A lookup past it is a miss there and a hit further down; its failed back-fill does not lose the hit.
        await memory.removeData(forKey: "k")
        let hit = try #require(await tiers.lookup(forKey: "k"))
        #expect(hit.kind == .remote && hit.entry.data == png)
        #expect(await memory.containsData(forKey: "k"))
        #expect(broken.attemptCount >= 3)
        // Only a broken tier: a miss, nothing thrown.
        #expect(await DataCacheTiers([.init(broken, kind: .disk)]).lookup(forKey: "k") == nil)
    }

    @Test func manyConcurrentLookupsAreEveryOneAnswered() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (tiers, memory, disk) = chain(folder)
        let keys = (0..<24).map { "key-\($0)" }
        for key in keys { try await disk.storeData(png + Data(key.utf8), forKey: key, validators: .none) }
        let answers = await withTaskGroup(of: (String, Data?).self) { group in
            for round in 0..<400 {
                let key = keys[round % keys.count]
                group.addTask { (key, await tiers.lookup(forKey: key)?.entry.data) }
            }
            return await group.reduce(into: [(String, Data?)]()) { $0.append($1) }
        }
        #expect(answers.count == 400)
        for (key, data) in answers { #expect(data == png + Data(key.utf8), "\(key)") }
        for key in keys { #expect(await memory.containsData(forKey: key)) }
    }

    @Test func memoryBytesAreBoundedBySize() async throws {
        let memory = MemoryDataCache(bytes: 40_000)
        for index in 0..<10 { try await memory.storeData(png, forKey: "\(index)", validators: .none) }
        #expect(memory.entries.totalCost <= 40_000)
        #expect(await memory.containsData(forKey: "9"))
        #expect(await memory.containsData(forKey: "0") == false)
        try await memory.storeData(Data(count: 15_000), forKey: "too big for one entry", validators: .none)
        #expect(await memory.containsData(forKey: "too big for one entry") == false)
    }
}
