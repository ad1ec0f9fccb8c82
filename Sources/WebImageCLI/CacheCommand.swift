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
              webimage cache stats --exact
              webimage cache trim --max-size 100000000 --max-age 86400
              webimage cache clear --cache-dir /tmp/thumbs
              webimage cache path
            """,
        subcommands: [Stats.self, Clear.self, Trim.self, Path.self, WriteEntries.self, SweepEntries.self])

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
        static let configuration = CommandConfiguration(
            abstract: "Entries and bytes in the cache, from its totals file (--exact lists the folder).")
        @OptionGroup var location: Location

        @Flag(help: "Count by listing the folder and reading every entry's size, and correct the totals file.")
        var exact = false

        func run() async throws {
            try CacheCommand.failingOnError {
                let cache = try location.openCache()
                let totals = exact ? cache.exactTotals() : cache.totals()
                try location.report(["entries": totals.entries, "bytes": totals.bytes, "path": cache.folder.path])
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete every entry.")
        @OptionGroup var location: Location

        func run() async throws {
            try CacheCommand.failingOnError {
                let cache = try location.openCache()
                let removed = cache.removeAllEntries()
                let after = cache.totals()
                try location.report([
                    "entries": after.entries, "bytes": after.bytes, "path": cache.folder.path,
                    "removedEntries": removed.evictedEntries, "removedBytes": removed.removedBytes,
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
                // The trim's walk has just set the totals file from the folder.
                let after = cache.totals()
                try location.report([
                    "entries": after.entries, "bytes": after.bytes, "path": cache.folder.path,
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
