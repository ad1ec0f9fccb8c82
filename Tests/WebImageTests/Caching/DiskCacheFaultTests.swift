import Foundation
import TestImageServer
import Testing
@_spi(Instrumentation) @testable import WebImage

/// A small tmpfs mounted for one test: a real full disk. Needs root (CI runs as root).
struct SmallFileSystem {
    let folder: TemporaryFolder

    /// Whether this process may mount one (checked once, by trying).
    static let isAvailable: Bool = {
        guard getuid() == 0, let probe = try? TemporaryFolder() else { return false }
        defer { probe.remove() }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]) == 0 else { return false }
        return run("/bin/umount", [probe.path]) == 0
    }()

    init(bytes: Int) throws {
        folder = try TemporaryFolder()
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", folder.path]) == 0 else {
            folder.remove()
            throw ImageError(.io, "mount failed")
        }
    }

    func unmount() {
        _ = Self.run("/bin/umount", [folder.path])
        folder.remove()
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        guard let process = try? SpawnedProcess(tool, arguments) else { return -1 }
        return process.waitBlocking()
    }
}

@Suite("DiskCache faults", .serialized)
struct DiskCacheFaultTests {
    @Test("a full disk fails the store with io, leaves no partial file, and the memory cache still works",
          .enabled(if: SmallFileSystem.isAvailable, "needs root to mount a small tmpfs"))
    func fullDisk() async throws {
        let disk = try SmallFileSystem(bytes: 64 * 1024)
        defer { disk.unmount() }
        let cache = makeDiskCache(disk.folder)
        var stored: [String] = []
        var failure: ImageError?
        for index in 0..<40 {
            let key = "entry-\(index)"
            do {
                try cache.store(WebImageTool.payload(forKey: key, size: 9000), forKey: key)
                stored.append(key)
            } catch {
                failure = error
                break
            }
        }
        #expect(failure?.code == .io)
        #expect(failure?.message.contains("No space left on device") == true)
        #expect(!stored.isEmpty)
        #expect(disk.folder.names().count == stored.count, "no temporary file is left")
        for key in stored { #expect(cache.data(forKey: key) == WebImageTool.payload(forKey: key, size: 9000)) }

        let (coders, _) = TestImages.coders()
        let imageCache = ImageCache(memory: MemoryCache(limits: .init(costLimit: 1 << 20)), disk: cache, coders: coders)
        let image = try TestImages.solid(RGBA(9, 8, 7), width: 20, height: 20)
        await #expect(throws: ImageError.self) {
            try await imageCache.store(image, data: WebImageTool.payload(forKey: "big", size: 30000), forKey: "big")
        }
        #expect(imageCache.image(forKey: "big")?.pixels[3, 3] == RGBA(9, 8, 7))
        #expect(disk.folder.names().count == stored.count)

        // Space freed, writes work again.
        cache.removeAll()
        try cache.store(Data("fits".utf8), forKey: "small")
        #expect(cache.data(forKey: "small") == Data("fits".utf8))
    }

    @Test("a file-size limit (another way to run out of space) fails the store with io and leaves nothing")
    func fileSizeLimit() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let small = try await WebImageTool.run([
            "cache", "_write", "--cache-dir", folder.path, "--count", "2", "--size", "1000",
            "--file-size-limit", "50000",
        ])
        #expect(small.status == 0)
        #expect(small.standardOutput == "entry-0\nentry-1\n")
        let large = try await WebImageTool.run([
            "cache", "_write", "--cache-dir", folder.path, "--count", "1", "--size", "100000", "--prefix", "big-",
            "--file-size-limit", "50000",
        ])
        #expect(large.status == 1)
        #expect(large.standardOutput.isEmpty)
        #expect(large.standardError.hasPrefix("webimage: io: cannot write a cache entry"))
        #expect(large.standardError.filter { $0 == "\n" }.count == 1)
        #expect(folder.names().count == 2, "no partial or temporary file")
        let cache = makeDiskCache(folder)
        #expect(cache.data(forKey: "entry-1") == WebImageTool.payload(forKey: "entry-1", size: 1000))
        #expect(cache.data(forKey: "big-0") == nil)
    }

    @Test("a writer killed with SIGKILL in the middle of writes leaves only complete entries")
    func killedWriter() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let size = 300_000
        var reported: [String] = []
        for round in 0..<3 {
            // --sync makes each write wait for the disk, so the kill most likely lands between creating a
            // temporary file and renaming it.
            let process = try WebImageTool.start([
                "cache", "_write", "--cache-dir", folder.path, "--size", String(size), "--prefix", "r\(round)-", "--sync",
            ])
            let lines = await WebImageTool.readLines(from: try #require(process.outputPipe), count: 4 + 3 * round)
            process.send(SIGKILL)
            #expect(await process.waitForExit() == 128 + SIGKILL)
            #expect(lines.count == 4 + 3 * round)
            reported += lines

            let cache = makeDiskCache(folder)
            for key in reported {
                #expect(cache.data(forKey: key) == WebImageTool.payload(forKey: key, size: size), "\(key)")
            }
            let entries = cache.enumerateEntriesForTest()
            #expect(entries.count >= reported.count)
            for metadata in entries {
                #expect(cache.data(forKey: metadata.key) == WebImageTool.payload(forKey: metadata.key, size: size))
            }
            #expect(cache.statistics.damagedEntries == 0)
            let strangers = folder.names().filter { DiskEntryName(fileName: $0) == nil }
            #expect(strangers.allSatisfy { $0.hasPrefix(".tmp-") }, "only an interrupted temporary file")
        }
        var configuration = DiskCache.Configuration(sweepInterval: nil)
        configuration.staleTemporaryAge = -1
        _ = DiskCache(folder: folder.url, configuration: configuration).count
        #expect(folder.names().allSatisfy { DiskEntryName(fileName: $0) != nil })
    }

    @Test("two processes writing the same keys into one folder, read meanwhile, never corrupt an entry")
    func twoProcesses() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let size = 40_000
        let arguments = ["cache", "_write", "--cache-dir", folder.path, "--count", "30", "--size", String(size),
                         "--prefix", "shared-"]
        async let first = WebImageTool.run(arguments)
        async let second = WebImageTool.run(arguments)
        let reader = makeDiskCache(folder, externalChangeInterval: 0)
        var hits = 0
        for round in 0..<300 {
            let key = "shared-\(round % 30)"
            if let data = reader.data(forKey: key) {
                hits += 1
                #expect(data == WebImageTool.payload(forKey: key, size: size))
            }
        }
        let (one, two) = try await (first, second)
        #expect(one.status == 0 && two.status == 0)
        #expect(reader.statistics.damagedEntries == 0)
        let cache = makeDiskCache(folder)
        #expect(cache.count == 30)
        for index in 0..<30 {
            let key = "shared-\(index)"
            #expect(cache.data(forKey: key) == WebImageTool.payload(forKey: key, size: size))
        }
        #expect(folder.names().count == 30)
        _ = hits
    }
}
