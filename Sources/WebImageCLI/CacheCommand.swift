import ArgumentParser
import Foundation
import WebImage

/// `webimage cache stats|clear|trim|path`: look at and maintain the disk cache, per the contract in DESIGN.md.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the disk cache.",
        discussion: """
            The cache folder is --cache-dir, else $XDG_CACHE_HOME/swift-web-image/default, else ~/.cache/swift-web-image/default.

            Examples:
              webimage cache stats --json
              webimage cache trim --max-size 100000000 --max-age 86400
              webimage cache clear --cache-dir /tmp/thumbs
              webimage cache path
            """,
        subcommands: [Stats.self, Clear.self, Trim.self, Path.self, WriteEntries.self])

    /// The options every cache subcommand takes.
    struct Location: ParsableArguments {
        @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The cache folder.", valueName: "DIR"))
        var cacheDirectory: String?

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        var folder: URL {
            cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultFolder()
        }

        /// The disk cache, opened for maintenance: no timer, and nothing deleted that was not asked for.
        func openCache() throws -> DiskCache {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw CacheCommandError("\(folder.path) is not a folder")
            }
            return DiskCache(folder: folder, configuration: .init(maxAge: nil, sweepInterval: nil))
        }

        /// Prints `fields` as JSON, or as `name: value` lines.
        func report(_ fields: KeyValuePairs<String, Any>) throws {
            if json {
                let object = Dictionary(uniqueKeysWithValues: fields.map { ($0.key, $0.value) })
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
            } else {
                for (name, value) in fields { print("\(name): \(value)") }
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries and bytes in the cache.")
        @OptionGroup var location: Location

        func run() async throws {
            try CacheCommand.failingOnError {
                let cache = try location.openCache()
                try location.report(["entries": cache.count, "bytes": cache.totalSize, "path": cache.folder.path])
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete every entry.")
        @OptionGroup var location: Location

        func run() async throws {
            try CacheCommand.failingOnError {
                let cache = try location.openCache()
                let before = (entries: cache.count, bytes: cache.totalSize)
                cache.removeAll()
                try location.report([
                    "entries": cache.count, "bytes": cache.totalSize, "path": cache.folder.path,
                    "removedEntries": before.entries - cache.count, "removedBytes": before.bytes - cache.totalSize,
                ])
            }
        }
    }

    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete entries unused for --max-age seconds (default one week), then least recently used ones until at most --max-size bytes remain.")
        @OptionGroup var location: Location

        @Option(name: .customLong("max-size"), help: ArgumentHelp("Most bytes to keep.", valueName: "BYTES"))
        var maxSize: Int?

        @Option(name: .customLong("max-age"), help: ArgumentHelp("Most seconds since last use.", valueName: "SECONDS"))
        var maxAge: Double?

        func validate() throws {
            if let maxSize, maxSize < 0 { throw ValidationError("--max-size must be 0 or more") }
            if let maxAge, !(maxAge >= 0) || !maxAge.isFinite { throw ValidationError("--max-age must be 0 or more") }
        }

        func run() async throws {
            try CacheCommand.failingOnError {
                let cache = try location.openCache()
                let expired = cache.removeExpired(olderThan: maxAge ?? DiskCache.Configuration().maxAge)
                var removedEntries = expired.expiredEntries, removedBytes = expired.removedBytes
                if let maxSize {
                    let trimmed = cache.trim(toSize: maxSize)
                    removedEntries += trimmed.evictedEntries
                    removedBytes += trimmed.removedBytes
                }
                try location.report([
                    "entries": cache.count, "bytes": cache.totalSize, "path": cache.folder.path,
                    "removedEntries": removedEntries, "removedBytes": removedBytes,
                ])
            }
        }
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the cache folder.")
        @OptionGroup var location: Location

        func run() async throws {
            if location.json {
                try location.report(["path": location.folder.path])
            } else {
                print(location.folder.path)
            }
        }
    }

    /// Hidden: stores generated entries one after another, printing each key once it is stored. The tests use
    /// it as a second process: killed in the middle of writes, or limited in file size to simulate a full disk.
    struct WriteEntries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "_write", shouldDisplay: false)
        @OptionGroup var location: Location

        @Option(help: "How many entries (keys \"<prefix>0\", \"<prefix>1\", …).") var count = Int.max
        @Option(help: "Bytes per entry.") var size = 65_536
        @Option(help: "Key prefix.") var prefix = "entry-"
        @Option(help: "Limit the size of files this process may write (RLIMIT_FSIZE).") var fileSizeLimit: Int?
        @Flag(help: "fsync every entry: widens the window between creating and renaming a file.") var sync = false

        func run() async throws {
            if let fileSizeLimit {
                // A write past the limit must fail with EFBIG rather than kill the process with SIGXFSZ.
                signal(SIGXFSZ, SIG_IGN)
                var limit = rlimit(rlim_cur: rlim_t(fileSizeLimit), rlim_max: rlim_t(fileSizeLimit))
                guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
                    throw CacheCommandError("cannot limit the file size")
                }
            }
            try CacheCommand.failingOnError {
                let cache = DiskCache(folder: location.folder, configuration: .init(
                    maxAge: nil, sweepInterval: nil, synchronousWrites: sync))
                var index = 0
                while index < count {
                    let key = prefix + String(index)
                    try cache.store(Data(Self.payload(forKey: key, size: size)), forKey: key)
                    FileHandle.standardOutput.write(Data((key + "\n").utf8))  // unbuffered: the key is stored
                    index += 1
                }
            }
        }

        /// Bytes that depend on the key, so a reader can tell a complete entry from a mixed-up one: 64-bit words
        /// `seed + i × golden ratio`, little-endian, where `seed` is the FNV-1a hash of the key.
        static func payload(forKey key: String, size: Int) -> Data {
            let seed = key.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
            var data = Data(count: (size + 7) / 8 * 8)
            data.withUnsafeMutableBytes { raw in
                for index in 0..<raw.count / 8 {
                    raw.storeBytes(of: (seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15).littleEndian,
                                   toByteOffset: index * 8, as: UInt64.self)
                }
            }
            return data.prefix(size)
        }
    }

    /// Runs `body`; an error becomes one line on stderr and exit status 1.
    static func failingOnError(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as ImageError {
            Console.error("\(error)")
            throw ExitCode.failure
        } catch let error as CacheCommandError {
            Console.error(error.message)
            throw ExitCode.failure
        }
    }
}

/// A failure of a cache subcommand, reported as one line.
struct CacheCommandError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
