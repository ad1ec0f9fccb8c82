import Foundation
import TestImageServer
import Testing
@_spi(Instrumentation) @testable import WebImage

/// Writes `count` valid entries straight into `folder` (no rename, no totals), entry `i` under key
/// `"\(prefix)\(i)"` with a 16-byte payload and last access `firstAccess + i`: a 100 000-entry folder in a few
/// seconds of a debug build. Returns the size of one entry file.
@discardableResult
func fillQuickly(_ folder: String, count: Int, prefix: String = "s", firstAccess: Double) throws -> Int {
    var size = 0
    for index in 0..<count {
        let key = prefix + String(index)
        let payload = Data(repeating: UInt8(truncatingIfNeeded: index), count: 16)
        let header = try DiskEntryHeader(key: key, format: "png", created: firstAccess, validators: .none,
                                         payloadLength: 16, payloadChecksum: payload.withUnsafeBytes { EntryChecksum.hash($0) })
            .encoded()
        let path = DiskEntryName(key: key).fileName(in: folder)
        guard case .success(let descriptor) = FileSystem.createExclusively(path) else { throw ImageError(.io, path) }
        _ = (header + [UInt8](payload)).withUnsafeBytes { FileSystem.writeAll(descriptor, $0) }
        FileSystem.setModificationTime(descriptor, to: firstAccess + Double(index))
        FileSystem.closeFile(descriptor)
        size = header.count + 16
    }
    return size
}

/// Runs blocking `body` on a new thread and waits for its result without blocking the caller's thread. `body`
/// must not record test expectations (a new thread is outside the test's task): it returns what to check.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

@Suite("DiskCache at 100 000 entries", .serialized)
struct DiskCacheScaleTests {
    /// 100 000, or what `WEBIMAGE_DISK_SCALE_ENTRIES` says: the sanitizer phases of `scripts/test` set it lower,
    /// since at 100 000 this one test was most of their time and the sanitizers check accesses, not scale.
    static let count = ProcessInfo.processInfo.environment["WEBIMAGE_DISK_SCALE_ENTRIES"].flatMap(Int.init) ?? 100_000

    /// What the 100 000-entry scenario observed; measured on a thread of its own, checked on the test's task.
    private struct Observations: Sendable {
        var firstHitFound = false, firstMissEmpty = false, scansAfterLookups = -1, operationsAfterLookups = -1
        var exactEntries = -1, scansAfterTotals = -1, restartedAgrees = false, restartedScans = -1
        var entrySize = 0, target = 0, remainingBytes = 0, remainingEntries = 0
        var probeLookups = 0, probeMaxOperations = 0, probeWrong = 0
        var oldestGone = false, newestKept = false, afterEntries = -1, afterBytes = -1, namesLeft = -1
    }

    @Test("lookups, totals and a trim to half at 100 000 entries: no listing before an answer, exact LRU order")
    func hundredThousandEntries() async throws {
        // A minute of blocking file work runs on a thread of its own, so that it does not hold one of the
        // cooperative pool's few threads (one per core) while the rest of the suite runs beside it.
        let seen = try await onOwnThread { try Self.observeHundredThousandEntries() }
        #expect(seen.firstHitFound && seen.firstMissEmpty)
        #expect(seen.scansAfterLookups == 0 && seen.operationsAfterLookups <= 7)
        #expect(seen.exactEntries == Self.count && seen.scansAfterTotals == 1)
        #expect(seen.restartedAgrees && seen.restartedScans == 0)
        #expect(seen.remainingBytes <= seen.target && seen.remainingBytes > seen.target - 2 * seen.entrySize)
        // The first walk alone reports one chunk per `chunkSize` names.
        #expect(seen.probeLookups >= Self.count / DiskFolder.chunkSize && seen.probeMaxOperations <= 6 && seen.probeWrong == 0)
        #expect(seen.oldestGone && seen.newestKept)
        #expect(seen.afterEntries == seen.remainingEntries && seen.afterBytes == seen.remainingBytes)
        #expect(seen.namesLeft == seen.afterEntries)
    }

    private static func observeHundredThousandEntries() throws -> Observations {
        var seen = Observations()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Entry i was last used count + 10 - i seconds ago: ages far apart relative to the histogram's buckets.
        let clock = ManualClock(1_000_010 + Double(Self.count))
        seen.entrySize = try fillQuickly(folder.path, count: Self.count, firstAccess: 1_000_000)
        let cache = makeDiskCache(folder, clock: clock, maxAge: nil)

        // A fresh process: hit and miss cost a bounded number of system calls; nothing is listed.
        let newest = Self.count - 1
        seen.firstHitFound = cache.data(forKey: "s\(newest)") == Data(repeating: UInt8(truncatingIfNeeded: newest), count: 16)
        seen.firstMissEmpty = cache.data(forKey: "absent") == nil
        seen.scansAfterLookups = cache.statistics.folderScans
        seen.operationsAfterLookups = cache.statistics.fileOperations

        // No totals file yet (written behind the cache's back): the first `totals()` lists once and writes it.
        let exact = cache.totals()
        seen.exactEntries = exact.entries
        seen.scansAfterTotals = cache.statistics.folderScans
        let restarted = makeDiskCache(folder, clock: clock, maxAge: nil)
        seen.restartedAgrees = restarted.totals() == exact
        seen.restartedScans = restarted.statistics.folderScans

        // Trim to half while lookups go on between chunks: each still opens only its own path.
        var configuration = DiskCache.Configuration(maxAge: nil, sweepInterval: nil, clock: clock.cacheClock)
        let probes = Locked((lookups: 0, maxOperations: 0, wrong: 0))
        let reader = makeDiskCache(folder, clock: clock, maxAge: nil)
        configuration.sweepChunkObserver = { _ in
            let before = reader.statistics.fileOperations
            let index = Int.random(in: Self.count * 6 / 10..<Self.count)
            let hit = reader.data(forKey: "s\(index)") == Data(repeating: UInt8(truncatingIfNeeded: index), count: 16)
            let spent = reader.statistics.fileOperations - before
            probes.withLock { $0 = ($0.lookups + 1, max($0.maxOperations, spent), $0.wrong + (hit ? 0 : 1)) }
        }
        let sweeper = DiskCache(folder: folder.url, configuration: configuration)
        seen.target = exact.bytes / 2
        let report = sweeper.trim(toSize: seen.target)
        seen.remainingBytes = report.remainingBytes
        seen.remainingEntries = report.remainingEntries
        (seen.probeLookups, seen.probeMaxOperations, seen.probeWrong) = probes.withLock { $0 }

        // Least recently used first: the oldest are gone, the newest stay (the boundary bucket is ~1 % of the age).
        seen.oldestGone = stride(from: 0, to: Self.count * 48 / 100, by: 7).allSatisfy { !sweeper.contains("s\($0)") }
        seen.newestKept = stride(from: Self.count * 52 / 100, to: Self.count, by: 7).allSatisfy { sweeper.contains("s\($0)") }
        let after = sweeper.exactTotals()
        seen.afterEntries = after.entries
        seen.afterBytes = after.bytes
        seen.namesLeft = folder.names().count
        return seen
    }

    @Test("kill -9 in the middle of a sweep: whole entries, a valid totals file, and the next sweep finishes the job")
    func killedSweep() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let entrySize = try fillQuickly(folder.path, count: 20_000, firstAccess: CacheClock.system.now() - 100_000)
        // The real clock: the sweep in the other process reads it too.
        func openCache(sizeLimit: Int? = nil) -> DiskCache {
            DiskCache(folder: folder.url, configuration: .init(maxAge: nil, sizeLimit: sizeLimit, sweepInterval: nil))
        }
        let real = openCache()
        let payload = WebImageTool.payload(forKey: "recent", size: 5000)
        try real.store(payload, forKey: "recent")
        let before = real.exactTotals()
        let limit = 5_000 * entrySize

        let process = try WebImageTool.start(["cache", "_sweep", "--cache-dir", folder.path, "--max-size",
                                              String(limit), "--hold-after", "25"])
        // Chunks 1…20 are the first walk (20 000 names); from 22 on, the walk that deletes. The sweep holds after
        // chunk 25 until killed.
        let lines = await WebImageTool.readLines(from: try #require(process.outputPipe), count: 25)
        process.send(SIGKILL)
        #expect(await process.waitForExit() == 128 + SIGKILL)
        #expect(lines.count == 25 && lines.last == "chunk 25")

        // The next process: a valid totals file, every entry whole, the fresh entry kept.
        let totals = try #require(DiskTotalsFile.read(folder: folder.path))
        let restarted = openCache(sizeLimit: limit)
        let exact = restarted.exactTotals()
        #expect(exact.entries < before.entries, "the sweep had deleted some")
        #expect(totals.entries >= exact.entries && totals.entries - exact.entries <= DiskFolder.chunkSize,
                "at most one chunk of deletions was not yet counted")
        #expect(restarted.data(forKey: "recent") == payload)
        #expect(folder.names().allSatisfy { DiskEntryName(fileName: $0) != nil })
        #expect(restarted.enumerateEntriesForTest().count == exact.entries)
        #expect(restarted.statistics.damagedEntries == 0)

        let report = restarted.sweep()
        #expect(report.remainingBytes <= limit / 2 && report.evictedEntries > 0)
        #expect(restarted.exactTotals().bytes == report.remainingBytes)
        #expect(restarted.data(forKey: "recent") == payload)
    }
}
