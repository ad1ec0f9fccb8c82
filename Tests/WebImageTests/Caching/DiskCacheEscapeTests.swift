import Foundation
import Testing
@testable import WebImage

/// Keys and planted files that try to make the disk cache read, write or delete outside its folder. (Storing
/// hostile keys and a link under one entry's name are in DiskCacheTests.)
@Suite("DiskCache escapes")
struct DiskCacheEscapeTests {
    /// A cache folder inside a parent folder that also holds files the cache must never touch.
    struct Layout {
        let parent: TemporaryFolder
        let cacheFolder: URL
        let outsideFile: URL
        let outsideFolder: URL

        init() throws {
            parent = try TemporaryFolder()
            cacheFolder = parent.url.appendingPathComponent("cache", isDirectory: true)
            outsideFile = parent.url.appendingPathComponent("escaped")
            outsideFolder = parent.url.appendingPathComponent("precious", isDirectory: true)
            try FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outsideFolder, withIntermediateDirectories: true)
            try Data("outside".utf8).write(to: outsideFile)
            for index in 0..<3 {
                try Data("keep \(index)".utf8).write(to: outsideFolder.appendingPathComponent("file\(index)"))
            }
        }

        /// Whether everything outside the cache folder is as it was made.
        var outsideIsIntact: Bool {
            (try? Data(contentsOf: outsideFile)) == Data("outside".utf8)
                && (0..<3).allSatisfy {
                    (try? Data(contentsOf: outsideFolder.appendingPathComponent("file\($0)"))) == Data("keep \($0)".utf8)
                }
                && Set(parent.names()) == ["cache", "escaped", "precious"]
        }

        func cache(sizeLimit: Int? = nil) -> DiskCache {
            DiskCache(folder: cacheFolder, configuration: .init(maxAge: 1, sizeLimit: sizeLimit, sweepInterval: nil))
        }
    }

    @Test("removing hostile keys, removeAll, trim and sweep delete nothing outside the folder")
    func removalsStayInside() throws {
        let layout = try Layout()
        defer { layout.parent.remove() }
        let keys = ["../escaped", "../../escaped", layout.outsideFile.path, "../precious/file0",
                    layout.outsideFolder.path + "/file1", "nul\0../escaped", String(repeating: "../", count: 4000)]
        let cache = layout.cache()
        for key in keys { try cache.store(Data(key.utf8.prefix(64)), forKey: key) }
        #expect(cache.count == keys.count)
        for key in keys { cache.remove(forKey: key) }
        #expect(cache.count == 0)
        for key in keys { try cache.store(Data("again".utf8), forKey: key) }
        cache.trim(toSize: 0)
        for key in keys { try cache.store(Data("again".utf8), forKey: key) }
        cache.removeExpired(olderThan: -1)
        cache.sweep()
        for key in keys { try cache.store(Data("again".utf8), forKey: key) }
        cache.removeAll()
        #expect(layout.outsideIsIntact)
        #expect(layout.parent.names(in: "cache").isEmpty)
    }

    @Test("keys that differ only after a NUL byte, or deep in a 10 000-character key, are different entries")
    func keysAreNotCutShort() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = makeDiskCache(folder)
        let long = String(repeating: "k", count: 10_000)
        let keys = ["a\0b", "a\0c", "a", long + "1", long + "2"]
        for (index, key) in keys.enumerated() { try cache.store(Data([UInt8(index)]), forKey: key) }
        let reopened = makeDiskCache(folder)
        #expect(reopened.count == keys.count)
        for (index, key) in keys.enumerated() {
            #expect(reopened.data(forKey: key) == Data([UInt8(index)]))
            #expect(reopened.metadata(forKey: key)?.key == key)
        }
    }

    @Test("links planted in the folder, to a file or a folder outside, are never followed by any operation")
    func plantedLinksAreNeverFollowed() throws {
        let layout = try Layout()
        defer { layout.parent.remove() }
        let writer = layout.cache()
        for index in 0..<4 { try writer.store(Data(repeating: UInt8(index), count: 500), forKey: "real-\(index)") }

        let folder = layout.cacheFolder.path
        let entryToFile = DiskEntryName(key: "planted-file").fileName
        let entryToFolder = DiskEntryName(key: "planted-folder").fileName
        let links = [
            (entryToFile, layout.outsideFile.path),  // poses as an entry
            (entryToFolder, layout.outsideFolder.path),
            ("escape", layout.outsideFolder.path),  // any other name
            (DiskFolder.temporaryPrefix + "1-2-3", layout.outsideFile.path),  // poses as a write in progress
        ]
        func plant() throws {
            for (name, target) in links where FileSystem.status(folder + "/" + name) == nil {
                try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: target)
            }
        }
        try plant()

        // A fresh cache lists the folder: links posing as entries are removed, nothing behind them is read.
        var configuration = DiskCache.Configuration(maxAge: nil, sweepInterval: nil)
        configuration.staleTemporaryAge = -1
        let cache = DiskCache(folder: layout.cacheFolder, configuration: configuration)
        #expect(cache.count == 4)
        #expect(cache.data(forKey: "planted-file") == nil)
        #expect(cache.data(forKey: "planted-folder") == nil)
        #expect(layout.outsideIsIntact)

        // Every operation, with the links planted again each time.
        let operations: [(String, () throws -> Void)] = [
            ("read", { _ = cache.data(forKey: "planted-file"); _ = cache.metadata(forKey: "planted-folder") }),
            ("store over", { try cache.store(Data("new".utf8), forKey: "planted-file") }),
            ("remove", { cache.remove(forKey: "planted-file"); cache.remove(forKey: "planted-folder") }),
            ("enumerate", { _ = cache.enumerateEntriesForTest() }),
            ("reload", { cache.reloadIndex(); _ = cache.count }),
            ("sweep", { _ = cache.sweep() }),
            ("trim", { _ = cache.trim(toSize: 0) }),
            ("expire", { _ = cache.removeExpired(olderThan: -1) }),
            ("remove all", { cache.removeAll() }),
        ]
        for (name, operation) in operations {
            try plant()
            try operation()
            #expect(layout.outsideIsIntact, "after \(name)")
        }
        #expect(cache.data(forKey: "planted-file") == nil)
    }
}
