import Foundation
import Testing
@testable import WebImage

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

@Suite("DiskCache at 100 000 entries", .serialized)
struct DiskCacheScaleTests {
    static let count = 100_000

    @Test("lookups, totals and a trim to half at 100 000 entries: no listing before an answer, exact LRU order")
    func hundredThousandEntries() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Entry i was last used 100 010 - i seconds ago: ages far apart relative to the histogram's buckets.
        let clock = ManualClock(1_100_010)
        let entrySize = try fillQuickly(folder.path, count: Self.count, firstAccess: 1_000_000)
        let cache = makeDiskCache(folder, clock: clock, maxAge: nil)

        // A fresh process: hit and miss cost a bounded number of system calls; nothing is listed.
        #expect(cache.data(forKey: "s99999") == Data(repeating: UInt8(truncatingIfNeeded: 99_999), count: 16))
        #expect(cache.data(forKey: "absent") == nil)
        #expect(cache.statistics.folderScans == 0 && cache.statistics.fileOperations <= 7)

        // No totals file yet (written behind the cache's back): the first `totals()` lists once and writes it.
        let exact = cache.totals()
        #expect(exact.entries == Self.count && cache.statistics.folderScans == 1)
        let restarted = makeDiskCache(folder, clock: clock, maxAge: nil)
        #expect(restarted.totals() == exact && restarted.statistics.folderScans == 0)

        // Trim to half while lookups go on between chunks: each still opens only its own path.
        var configuration = DiskCache.Configuration(maxAge: nil, sweepInterval: nil, clock: clock.cacheClock)
        let probes = Locked((lookups: 0, maxOperations: 0, wrong: 0))
        let reader = makeDiskCache(folder, clock: clock, maxAge: nil)
        configuration.sweepChunkObserver = { _ in
            let before = reader.statistics.fileOperations
            let index = Int.random(in: 60_000..<Self.count)
            let hit = reader.data(forKey: "s\(index)") == Data(repeating: UInt8(truncatingIfNeeded: index), count: 16)
            let spent = reader.statistics.fileOperations - before
            probes.withLock { $0 = ($0.lookups + 1, max($0.maxOperations, spent), $0.wrong + (hit ? 0 : 1)) }
        }
        let sweeper = DiskCache(folder: folder.url, configuration: configuration)
        let target = exact.bytes / 2
        let report = sweeper.trim(toSize: target)
        #expect(report.remainingBytes <= target && report.remainingBytes > target - 2 * entrySize)
        let probed = probes.withLock { $0 }
        #expect(probed.lookups >= 100 && probed.maxOperations <= 6 && probed.wrong == 0)

        // Least recently used first: the oldest are gone, the newest stay (the boundary bucket is ~1 % of the age).
        #expect(stride(from: 0, to: 48_000, by: 7).allSatisfy { !sweeper.contains("s\($0)") })
        #expect(stride(from: 52_000, to: Self.count, by: 7).allSatisfy { sweeper.contains("s\($0)") })
        let after = sweeper.exactTotals()
        #expect(after.entries == report.remainingEntries && after.bytes == report.remainingBytes)
        #expect(folder.names().count == after.entries)
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

        let process = try WebImageTool.makeProcess(["cache", "_sweep", "--cache-dir", folder.path, "--max-size",
                                                    String(limit), "--pause", "30"])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Chunks 1…20 are the first walk (20 000 names); from 22 on, the walk that deletes.
        let lines = await WebImageTool.readLines(from: output.fileHandleForReading, count: 25)
        kill(process.processIdentifier, SIGKILL)
        await WebImageTool.waitForExit(process)
        #expect(process.terminationReason == .uncaughtSignal)
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
