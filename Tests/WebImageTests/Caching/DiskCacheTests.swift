import Foundation
import Testing
@_spi(Instrumentation) @testable import WebImage

/// A disk cache without a sweep timer, on a manual clock.
func makeDiskCache(
    _ folder: TemporaryFolder, clock: ManualClock = ManualClock(), additional: [URL] = [],
    maxAge: Double? = 7 * 24 * 3600, sizeLimit: Int? = nil, externalChangeInterval: Double = 1
) -> DiskCache {
    DiskCache(folder: folder.url, additionalFolders: additional, configuration: .init(
        maxAge: maxAge, sizeLimit: sizeLimit, sweepInterval: nil, externalChangeInterval: externalChangeInterval,
        clock: clock.cacheClock))
}

let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

@Suite("DiskCache")
struct DiskCacheTests {
    @Test("an entry round-trips with its metadata, under a hashed name with the URL's extension")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock(1_700_000_000)
        let cache = makeDiskCache(folder, clock: clock)
        let key = "https://example.com/images/Photo.PNG?size=large#top"
        let payload = pngSignature + Data((0..<5000).map { UInt8($0 % 251) })
        let validators = HTTPValidators(etag: "\"abc\"", lastModified: "Tue, 21 Nov 2023 10:00:00 GMT",
                                        expires: 1_700_003_600)
        try cache.store(payload, forKey: key, validators: validators)
        clock.advance(by: 5)

        let entry = try #require(cache.entry(forKey: key))
        #expect(entry.data == payload)
        #expect(entry.metadata.key == key)
        #expect(entry.metadata.format == .png)
        #expect(entry.metadata.payloadLength == payload.count)
        #expect(entry.metadata.fileSize > payload.count)
        #expect(entry.metadata.created == 1_700_000_000)
        #expect(entry.metadata.lastAccess == 1_700_000_005)
        #expect(entry.metadata.validators == validators)

        let names = folder.names()
        #expect(names == [DiskEntryName(key: key).fileName])
        #expect(names[0].count == 64 + 4 && names[0].hasSuffix(".png"))
        #expect(cache.count == 1)
        #expect(cache.totalSize == entry.metadata.fileSize)

        // A second process (a new cache on the same folder) reads the same entry and times.
        let reopened = makeDiskCache(folder, clock: clock)
        let metadata = try #require(reopened.metadata(forKey: key))
        #expect(metadata == CacheEntryMetadata(key: key, format: .png, payloadLength: payload.count,
                                               fileSize: entry.metadata.fileSize, created: 1_700_000_000,
                                               lastAccess: 1_700_000_000, validators: validators))
        #expect(reopened.data(forKey: key) == payload)
    }

    @Test("replacing, removing and clearing entries; an empty payload is an entry too")
    func replaceRemoveClear() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = makeDiskCache(folder)
        try cache.store(Data("one".utf8), forKey: "a")
        try cache.store(Data("two".utf8), forKey: "a")
        try cache.store(Data(), forKey: "empty")
        #expect(cache.data(forKey: "a") == Data("two".utf8))
        #expect(cache.data(forKey: "empty") == Data())
        #expect(cache.count == 2)
        cache.remove(forKey: "a")
        #expect(cache.data(forKey: "a") == nil)
        #expect(!cache.contains("a") && cache.contains("empty"))
        for index in 0..<5 { try cache.store(Data([UInt8(index)]), forKey: "k\(index)") }
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalSize == 0)
        #expect(folder.names().isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder.path))
    }

    @Test("validators can be replaced after a revalidation")
    func updateValidators() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = makeDiskCache(folder, clock: clock)
        try cache.store(Data("image".utf8), forKey: "k", validators: HTTPValidators(etag: "v1"))
        clock.advance(by: 100)
        #expect(try cache.updateValidators(HTTPValidators(etag: "v2", expires: 5), forKey: "k"))
        let metadata = try #require(cache.metadata(forKey: "k"))
        #expect(metadata.validators == HTTPValidators(etag: "v2", expires: 5))
        #expect(metadata.created == clock.now)
        #expect(cache.data(forKey: "k") == Data("image".utf8))
        #expect(try !cache.updateValidators(.none, forKey: "missing"))
    }

    @Test("new validators are a new header before the same payload, copied as it is and never read again")
    func updateValidatorsKeepsThePayloadUnread() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = makeDiskCache(folder, clock: ManualClock())
        let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try cache.store(payload, forKey: "k", validators: HTTPValidators(etag: "\"short\""))
        let path = DiskEntryName(key: "k").fileName(in: folder.url.path)
        let before = try #require(FileSystem.status(path))
        // A longer ETag makes a longer header: the payload moves, and is still whole.
        #expect(try cache.updateValidators(HTTPValidators(etag: "\"a-much-longer-entity-tag\""), forKey: "k"))
        let after = try #require(FileSystem.status(path))
        #expect(after.inode != before.inode, "a new file renamed into place, never a rewrite in place")
        #expect(after.size == before.size + 19)
        #expect(cache.data(forKey: "k") == payload)
        #expect(folder.names().count == 1, "no temporary file is left")

        // One flipped payload byte: the update does not hash the payload (it keeps the stored checksum), so the
        // damage is still found by the next read, which deletes the entry instead of delivering it.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(after.size - 10))
        try handle.write(contentsOf: Data([0xFF ^ payload[payload.count - 10]]))
        try handle.close()
        #expect(try cache.updateValidators(HTTPValidators(etag: "\"third\""), forKey: "k"))
        #expect(cache.data(forKey: "k") == nil)
        #expect(try !cache.updateValidators(HTTPValidators(etag: "\"fourth\""), forKey: "k"))
    }

    @Test("hostile keys never leave the folder", arguments: [
        "../../../../tmp/escaped", "/etc/passwd", "/absolute/path/image.png", "nul\0byte.jpg", "..", ".", "",
        "a/../../b.gif", "key?with=query&../x", String(repeating: "x", count: 10_000),
        String(repeating: "../", count: 3000) + "deep.png", "emoji-🙂.webp", "space and\nnewline.jpg",
    ])
    func hostileKeys(key: String) throws {
        let parent = try TemporaryFolder()
        defer { parent.remove() }
        let folder = parent.url.appendingPathComponent("cache", isDirectory: true)
        let cache = DiskCache(folder: folder, configuration: .init(sweepInterval: nil))
        let payload = Data(key.utf8.prefix(100)) + Data([1, 2, 3])
        try cache.store(payload, forKey: key)
        #expect(cache.data(forKey: key) == payload)
        #expect(parent.names() == ["cache"])
        let names = parent.names(in: "cache")
        #expect(names.count == 1)
        #expect(names.allSatisfy { DiskEntryName(fileName: $0) != nil && $0.count <= 64 + 9 })
        #expect(cache.enumerateEntriesForTest().map(\.key) == [key])
    }

    @Test("a symbolic link planted under an entry's name is not followed, and is removed")
    func plantedSymlink() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let outside = try TemporaryFolder()
        defer { outside.remove() }
        let target = outside.url.appendingPathComponent("secret")
        try Data("secret".utf8).write(to: target)
        let cache = makeDiskCache(folder)
        try cache.store(Data("real".utf8), forKey: "k")
        let entryPath = folder.url.appendingPathComponent(DiskEntryName(key: "k").fileName).path
        try FileManager.default.removeItem(atPath: entryPath)
        try FileManager.default.createSymbolicLink(atPath: entryPath, withDestinationPath: target.path)
        #expect(cache.data(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: entryPath))
        #expect(try Data(contentsOf: target) == Data("secret".utf8))

        // Planted before the folder is listed: the scan removes it without reading through it.
        try FileManager.default.createSymbolicLink(atPath: entryPath, withDestinationPath: target.path)
        let reopened = makeDiskCache(folder)
        #expect(reopened.count == 0)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: entryPath)) == nil)
    }

    @Test("additional folders are searched after the main one and never written")
    func additionalFolders() throws {
        let shared = try TemporaryFolder()
        defer { shared.remove() }
        let own = try TemporaryFolder()
        defer { own.remove() }
        let writer = makeDiskCache(shared)
        try writer.store(Data("shared".utf8), forKey: "s")
        try writer.store(Data("shadowed".utf8), forKey: "both")

        let cache = makeDiskCache(own, additional: [shared.url])
        try cache.store(Data("own".utf8), forKey: "both")
        #expect(cache.data(forKey: "s") == Data("shared".utf8))
        #expect(cache.data(forKey: "both") == Data("own".utf8))
        #expect(cache.contains("s"))
        #expect(cache.count == 1, "only the main folder is counted")
        cache.remove(forKey: "s")
        cache.removeAll()
        #expect(writer.data(forKey: "s") == Data("shared".utf8), "the read-only folder is untouched")

        // A damaged entry in a read-only folder reads as a miss but stays.
        let path = shared.url.appendingPathComponent(DiskEntryName(key: "s").fileName).path
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fresh = makeDiskCache(own, additional: [shared.url])
        #expect(fresh.data(forKey: "s") == nil)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("a lookup opens only its own path: a miss is one system call, a hit at most six, no folder is listed")
    func boundedLookups() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = makeDiskCache(folder)
        for index in 0..<20 { try writer.store(Data([UInt8(index)]), forKey: "k\(index)") }

        let cache = makeDiskCache(folder)
        #expect(cache.data(forKey: "k3") == Data([3]))
        let afterHit = cache.statistics
        #expect(afterHit.folderScans == 0 && afterHit.fileOpens == 1)
        #expect((5...6).contains(afterHit.fileOperations))

        for index in 0..<1000 { #expect(cache.data(forKey: "missing\(index)") == nil) }
        var statistics = cache.statistics
        #expect(statistics.fileOperations == afterHit.fileOperations + 1000, "one failed open per miss")
        #expect(statistics.folderScans == 0 && statistics.misses == 1000)
        #expect(cache.contains("k7") && !cache.contains("nope"))
        #expect(cache.statistics.fileOperations == statistics.fileOperations + 2)

        // Deleted behind its back: a miss, and writing recreates the folder.
        try FileManager.default.removeItem(at: folder.url)
        #expect(cache.data(forKey: "k7") == nil && !cache.contains("k7"))
        try cache.store(Data("again".utf8), forKey: "k7")
        #expect(cache.data(forKey: "k7") == Data("again".utf8))
        statistics = cache.statistics
        #expect(statistics.folderScans == 0)
        #expect(cache.totals() == DiskCache.Totals(entries: 1, bytes: cache.totalSize))
    }

    @Test("another process's writes and removals are visible to the next lookup")
    func otherProcessesWrites() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let reader = makeDiskCache(folder)
        #expect(reader.data(forKey: "new") == nil)
        let other = makeDiskCache(folder)
        try other.store(Data("fresh".utf8), forKey: "new")
        #expect(reader.data(forKey: "new") == Data("fresh".utf8))
        other.remove(forKey: "new")
        #expect(reader.data(forKey: "new") == nil)
        #expect(reader.statistics.folderScans == 0)
    }

    @Test("totals survive a restart: stores, replacements and removals of two caches add up in the totals file")
    func totalsSurviveRestart() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = makeDiskCache(folder)
        #expect(empty.totals() == DiskCache.Totals(entries: 0, bytes: 0, surveyed: empty.totals().surveyed))
        let first = makeDiskCache(folder), second = makeDiskCache(folder)
        for index in 0..<10 { try first.store(Data(count: 100 + index), forKey: "a\(index)") }
        for index in 0..<5 { try second.store(Data(count: 300), forKey: "a\(index)") }  // replacements
        second.remove(forKey: "a9")
        _ = first.totals()  // adds what each has not added yet
        _ = second.totals()

        let restarted = makeDiskCache(folder)
        let totals = restarted.totals()
        #expect(restarted.statistics.folderScans == 0, "read from the totals file, no listing")
        #expect(totals.entries == 9 && totals.bytes == restarted.totalSize)
        #expect(DiskTotalsFile.read(folder: folder.path)?.entries == 9)
    }

    @Test("a torn or missing totals file reads as unknown, and a listing writes it again")
    func damagedTotalsFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = makeDiskCache(folder)
        for index in 0..<3 { try cache.store(Data(count: 50), forKey: "k\(index)") }
        let exact = cache.exactTotals()
        let path = DiskTotalsFile.path(in: folder.path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[9] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(DiskTotalsFile.read(folder: folder.path) == nil)
        let fresh = makeDiskCache(folder)
        #expect(fresh.totals().entries == 3 && fresh.statistics.folderScans == 1)
        #expect(DiskTotalsFile.read(folder: folder.path)?.bytes == exact.bytes)
    }

    @Test("many tasks storing and reading at once leave only valid entries")
    func concurrentStores() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = makeDiskCache(folder)
        let payloads = (0..<25).map { WebImageTool.payload(forKey: "k\($0)", size: 2000) }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for round in 0..<40 {
                        let index = (worker * 7 + round) % 25
                        let key = "k\(index)"
                        try? cache.store(payloads[index] + Data(count: round), forKey: key)
                        if let data = cache.data(forKey: key) { #expect(data.prefix(2000) == payloads[index]) }
                        if round % 10 == 9 { cache.remove(forKey: "k\(round % 25)") }
                    }
                }
            }
        }
        #expect(folder.names().allSatisfy { DiskEntryName(fileName: $0) != nil }, "no temporary file is left")
        let reopened = makeDiskCache(folder)
        #expect(reopened.count == folder.names().count)
        for metadata in reopened.enumerateEntriesForTest() {
            let data = try #require(reopened.data(forKey: metadata.key))
            #expect(data.prefix(2000) == WebImageTool.payload(forKey: metadata.key, size: 2000))
            #expect(data.dropFirst(2000).allSatisfy { $0 == 0 })
        }
        #expect(reopened.statistics.damagedEntries == 0)
    }
}

extension DiskCache {
    /// Every entry's metadata, least recently used first.
    func enumerateEntriesForTest() -> [CacheEntryMetadata] {
        var all: [CacheEntryMetadata] = []
        enumerateEntries { all.append($0); return true }
        return all
    }
}
