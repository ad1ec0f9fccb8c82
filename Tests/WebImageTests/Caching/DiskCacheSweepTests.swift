import Foundation
import Testing
@testable import WebImage

@Suite("DiskCache limits")
struct DiskCacheSweepTests {
    /// Stores `count` entries of 1 000 payload bytes, one second apart, under keys of one length ("k000"…),
    /// so that every file has the same size.
    func fill(_ cache: DiskCache, clock: ManualClock, count: Int, from first: Int = 0) throws {
        for index in first..<first + count {
            try cache.store(Data(repeating: UInt8(index % 256), count: 1000), forKey: key(index))
            clock.advance(by: 1)
        }
    }

    func key(_ index: Int) -> String { "k" + String(1000 + index).dropFirst() }

    @Test("a write that crosses the size limit starts a sweep that deletes least recently used entries down to half of it")
    func sizeLimitOnWrite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let probe = makeDiskCache(folder, clock: clock)
        try probe.store(Data(repeating: 0, count: 1000), forKey: key(0))
        let entrySize = probe.totalSize
        probe.removeAll()

        let reports = Locked<[DiskCache.SweepReport]>([])
        let cache = DiskCache(folder: folder.url, configuration: .init(
            sizeLimit: entrySize * 10, sweepInterval: nil, clock: clock.cacheClock,
            sweepObserver: { report in reports.withLock { $0.append(report) } }))
        try fill(cache, clock: clock, count: 10)
        #expect(cache.count == 10 && reports.withLock { $0.isEmpty })
        #expect(cache.data(forKey: key(0)) != nil)  // entry 0 is now the most recently used
        try fill(cache, clock: clock, count: 1, from: 10)  // 11 entries: over the limit, a sweep starts
        cache.waitForBackgroundSweeps()

        #expect(cache.totalSize <= entrySize * 5)
        #expect(cache.count == 5)
        let kept = Set((0...10).filter { cache.contains(key($0)) })
        #expect(kept == [0, 7, 8, 9, 10])
        #expect(folder.names().count == 5)
        let report = try #require(reports.withLock { $0.first })
        #expect(report.evictedEntries == 6 && report.removedBytes == 6 * entrySize)
        #expect(report.remainingEntries == 5 && report.remainingBytes == 5 * entrySize)
    }

    @Test("the age limit goes by last access: a read keeps an entry, an expired one is a miss at once")
    func ageLimit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = makeDiskCache(folder, clock: clock, maxAge: 100)
        try cache.store(Data("a".utf8), forKey: "a")
        try cache.store(Data("b".utf8), forKey: "b")
        try cache.store(Data("c".utf8), forKey: "c")
        clock.advance(by: 60)
        #expect(cache.data(forKey: "a") != nil)
        clock.advance(by: 60)  // a: used 60 s ago; b, c: 120 s
        let report = cache.removeExpired()
        #expect(report.expiredEntries == 2 && report.remainingEntries == 1)
        #expect(cache.contains("a") && !cache.contains("b"))
        clock.advance(by: 101)
        #expect(cache.data(forKey: "a") == nil, "expired entries are misses even before a sweep")
        #expect(folder.names().isEmpty)
    }

    @Test("last access survives a restart: it is the file's modification time")
    func persistedAccessTime() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock(1_700_000_000)
        let cache = DiskCache(folder: folder.url, configuration: .init(
            maxAge: 1000, sweepInterval: nil, accessTimeResolution: 60, clock: clock.cacheClock))
        try cache.store(Data("old".utf8), forKey: "old")
        try cache.store(Data("used".utf8), forKey: "used")
        clock.advance(by: 30)
        _ = cache.data(forKey: "used")  // within the resolution: kept in memory only
        clock.advance(by: 70)
        _ = cache.data(forKey: "used")  // 100 s after the write: persisted
        clock.advance(by: 950)

        let restarted = DiskCache(folder: folder.url, configuration: .init(
            maxAge: 1000, sweepInterval: nil, clock: clock.cacheClock))
        #expect(restarted.metadata(forKey: "used")?.lastAccess == 1_700_000_100)
        #expect(restarted.sweep().expiredEntries == 1)
        #expect(restarted.contains("used") && !restarted.contains("old"))
    }

    @Test("trim(toSize:) deletes least recently used entries until the total fits")
    func trimToSize() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = makeDiskCache(folder, clock: clock)
        try fill(cache, clock: clock, count: 8)
        let entrySize = cache.totalSize / 8
        let report = cache.trim(toSize: entrySize * 3)
        #expect(report.evictedEntries == 5 && cache.count == 3)
        #expect((5..<8).allSatisfy { cache.contains(key($0)) })
        #expect(cache.trim(toSize: 0).evictedEntries == 3)
        #expect(folder.names().isEmpty)
    }

    @Test("the sweep timer enforces the limits while the cache lives")
    func sweepTimer() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let seeded = makeDiskCache(folder, clock: clock)
        try fill(seeded, clock: clock, count: 3)
        clock.advance(by: 1000)

        let (reports, continuation) = AsyncStream.makeStream(of: DiskCache.SweepReport.self)
        let cache = DiskCache(folder: folder.url, configuration: .init(
            maxAge: 500, sweepInterval: 0.01, clock: clock.cacheClock,
            sweepObserver: { continuation.yield($0) }))
        var iterator = reports.makeAsyncIterator()
        let report = try #require(await iterator.next())
        #expect(report.expiredEntries == 3 && report.remainingEntries == 0)
        #expect(folder.names().isEmpty)
        _ = cache
    }

    @Test("a scan deletes temporary files left by dead writers, and leaves fresh ones")
    func staleTemporaryFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let temporary = folder.url.appendingPathComponent(".tmp-999-1-1")
        try Data("partial".utf8).write(to: temporary)
        #expect(makeDiskCache(folder).count == 0)
        #expect(FileManager.default.fileExists(atPath: temporary.path), "a write in progress is never deleted")
        #expect(DiskCache.Configuration().staleTemporaryAge == 600)

        var configuration = DiskCache.Configuration(sweepInterval: nil)
        configuration.staleTemporaryAge = -1  // every temporary file counts as stale
        #expect(DiskCache(folder: folder.url, configuration: configuration).count == 0)
        #expect(folder.names().isEmpty)
    }
}
