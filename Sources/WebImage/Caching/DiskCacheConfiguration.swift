import Foundation

extension DiskCache {
    /// How a ``DiskCache`` bounds itself and how it shares its folder.
    public struct Configuration: Sendable {
        /// Entries not read or written for this many seconds are deleted; `nil` keeps them forever.
        /// Default one week, as SDWebImage.
        public var maxAge: Double?
        /// Most bytes of files (headers included); `nil` for no limit (SDWebImage's default). When a write
        /// takes the cache over it, least recently used entries are deleted until the total is at most
        /// ``trimTarget`` of the limit.
        public var sizeLimit: Int?
        /// The fraction of ``sizeLimit`` a size sweep trims down to: one half, as SDWebImage, so that a busy
        /// cache does not sweep on every write.
        public var trimTarget: Double
        /// Seconds between sweeps (age, then size) while the cache is alive; `nil` for none. Default 5 minutes.
        public var sweepInterval: Double?
        /// No longer used, kept for source compatibility: a lookup opens the entry's own path, so other
        /// processes' writes are visible at once and no folder is rescanned. Default 1 second.
        public var externalChangeInterval: Double
        /// A hit records its time in memory at once, but rewrites the file's modification time (where last
        /// access is persisted) at most once per this many seconds. Default 60.
        public var accessTimeResolution: Double
        /// `fsync` each entry before renaming it into place. Off by default: entries carry a checksum, so one
        /// torn by a power loss is detected, deleted and read as a miss; `fsync` only makes it survive.
        public var synchronousWrites: Bool
        /// Where the cache reads the time (tests move it by hand).
        var clock: CacheClock
        /// Called after every sweep with what it removed.
        public var sweepObserver: (@Sendable (SweepReport) -> Void)?
        /// Called during a sweep, after each chunk of 1 024 names, with what it has removed so far (progress for
        /// tools; the sweep waits for it to return). Not an initializer parameter: set it on the configuration.
        public var sweepChunkObserver: (@Sendable (SweepReport) -> Void)?
        /// A temporary file unchanged for this many seconds belongs to a writer that died: a sweep (or any walk
        /// of the folder) deletes it. No write takes 10 minutes, so one in progress in another process is never touched.
        var staleTemporaryAge = 600.0

        /// Creates a configuration; every parameter defaults to the value described on its property.
        public init(
            maxAge: Double? = 7 * 24 * 3600, sizeLimit: Int? = nil, trimTarget: Double = 0.5,
            sweepInterval: Double? = 300, externalChangeInterval: Double = 1, accessTimeResolution: Double = 60,
            synchronousWrites: Bool = false, sweepObserver: (@Sendable (SweepReport) -> Void)? = nil
        ) {
            self.init(maxAge: maxAge, sizeLimit: sizeLimit, trimTarget: trimTarget, sweepInterval: sweepInterval,
                      externalChangeInterval: externalChangeInterval, accessTimeResolution: accessTimeResolution,
                      synchronousWrites: synchronousWrites, clock: .system, sweepObserver: sweepObserver)
        }

        /// A configuration whose cache reads the time from `clock` (tests).
        init(
            maxAge: Double? = 7 * 24 * 3600, sizeLimit: Int? = nil, trimTarget: Double = 0.5,
            sweepInterval: Double? = 300, externalChangeInterval: Double = 1, accessTimeResolution: Double = 60,
            synchronousWrites: Bool = false, clock: CacheClock,
            sweepObserver: (@Sendable (SweepReport) -> Void)? = nil
        ) {
            self.maxAge = maxAge
            self.sizeLimit = sizeLimit
            self.trimTarget = min(max(trimTarget, 0), 1)
            self.sweepInterval = sweepInterval
            self.externalChangeInterval = externalChangeInterval
            self.accessTimeResolution = accessTimeResolution
            self.synchronousWrites = synchronousWrites
            self.clock = clock
            self.sweepObserver = sweepObserver
        }
    }

    /// What a sweep removed and what is left.
    public struct SweepReport: Sendable, Hashable {
        /// Entries deleted because they were older than the age limit.
        public var expiredEntries = 0
        /// Entries deleted to get under the size limit.
        public var evictedEntries = 0
        /// Bytes of files deleted.
        public var removedBytes = 0
        /// Entries left.
        public var remainingEntries = 0
        /// Bytes left.
        public var remainingBytes = 0

        /// An empty report.
        public init() {}
    }

    /// Counters since the cache was created, for tests and benchmarks: how the cache does its work, which is not
    /// part of its contract (hence behind `@_spi(Instrumentation)`).
    @_spi(Instrumentation)
    public struct Statistics: Sendable, Hashable {
        /// Reads that returned an entry.
        public var hits = 0
        /// Reads that found nothing.
        public var misses = 0
        /// Entries written.
        public var writes = 0
        /// Entry files opened and found (a miss, a failed `open`, is not counted here).
        public var fileOpens = 0
        /// System calls made by lookups (`data`, `entry`, `metadata`, `contains`): one per folder for a miss,
        /// five or six for a hit, whatever the number of entries.
        public var fileOperations = 0
        /// Complete walks of the main folder: sweeps, ``DiskCache/count``, ``DiskCache/totalSize``,
        /// ``DiskCache/exactTotals()``, ``DiskCache/removeAll()``. Never made by a lookup or a store.
        public var folderScans = 0
        /// Damaged or truncated entries found (and deleted, in the main folder).
        public var damagedEntries = 0
    }

    /// `$XDG_CACHE_HOME/swift-web-image/<namespace>`, else `~/.cache/swift-web-image/<namespace>`.
    ///
    /// The namespace keeps letters, digits, `.`, `-` and `_`; other characters become `_`, and a name that
    /// would be empty, `.` or `..` becomes `default`, so it always names one folder below `swift-web-image`.
    public static func defaultFolder(namespace: String = "default") -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        } else {
            base = FileManager.default.temporaryDirectory
        }
        return base.appendingPathComponent("swift-web-image", isDirectory: true)
            .appendingPathComponent(sanitizedNamespace(namespace), isDirectory: true)
    }

    static func sanitizedNamespace(_ namespace: String) -> String {
        let kept = String(namespace.unicodeScalars.prefix(128).map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "-" || scalar == "_") ? Character(scalar) : "_"
        })
        return kept.isEmpty || kept == "." || kept == ".." ? "default" : kept
    }
}
