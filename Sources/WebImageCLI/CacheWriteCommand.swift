import ArgumentParser
import Foundation
import Synchronization
import WebImage

extension CacheCommand {
    /// Hidden: stores generated entries, printing each key once it is stored. The tests and `scripts/crash-rounds`
    /// use it as a second process: killed in the middle of writes, or limited in file size to simulate a full disk.
    ///
    /// Keys are `<prefix>0`, `<prefix>1`, … (with `--keys K`, the index modulo K); with `--writers W`, W threads
    /// share the indices (thread `w` stores `w`, `w + W`, …), so several stores are in flight at any moment.
    struct WriteEntries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "_write", shouldDisplay: false)
        @OptionGroup var location: Location

        @Option(help: "How many entries (keys \"<prefix>0\", \"<prefix>1\", …).") var count = Int.max
        @Option(help: "Bytes per entry.") var size = 65_536
        @Option(help: "Key prefix.") var prefix = "entry-"
        @Option(help: "Threads storing at the same time.") var writers = 1
        @Option(help: "Reuse this many keys: entry i is stored under key i modulo it (replacing earlier entries).")
        var keys: Int?
        @Option(help: "Limit the size of files this process may write (RLIMIT_FSIZE).") var fileSizeLimit: Int?
        @Flag(help: "fsync every entry: widens the window between creating and renaming a file.") var sync = false

        func validate() throws {
            guard writers >= 1 else { throw ValidationError("--writers must be 1 or more") }
            guard count >= 0, size >= 0 else { throw ValidationError("--count and --size must be 0 or more") }
            if let keys, keys < 1 { throw ValidationError("--keys must be 1 or more") }
        }

        func run() async throws {
            if let fileSizeLimit {
                // A write past the limit must fail with EFBIG rather than kill the process with SIGXFSZ.
                signal(SIGXFSZ, SIG_IGN)
                var limit = rlimit(rlim_cur: rlim_t(fileSizeLimit), rlim_max: rlim_t(fileSizeLimit))
                guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
                    throw CacheCommandError("cannot limit the file size")
                }
            }
            let cache = DiskCache(folder: location.folder, configuration: .init(
                maxAge: nil, sweepInterval: nil, synchronousWrites: sync))
            // Set by the first writer that fails, which also reports the error; the others stop at their next entry.
            let failed = FailureFlag()
            let group = DispatchGroup()
            for writer in 0..<writers {
                // Threads of their own: every store blocks on the disk, and all of them must be in flight at once.
                let thread = Thread { [count, size, prefix, writers, keys] in
                    defer { group.leave() }
                    var index = writer
                    while index < count, !failed.isSet {
                        let key = prefix + String(keys.map { index % $0 } ?? index)
                        do {
                            try cache.store(Self.payload(forKey: key, size: size), forKey: key)
                        } catch {
                            if failed.claim() { Console.error("\(error)") }
                            return
                        }
                        FileHandle.standardOutput.write(Data((key + "\n").utf8))  // one write: the key is stored
                        let (next, overflow) = index.addingReportingOverflow(writers)
                        if overflow { return }
                        index = next
                    }
                }
                group.enter()
                thread.start()
            }
            await withCheckedContinuation { continuation in
                group.notify(queue: .global()) { continuation.resume() }
            }
            // Add this process's stores to the totals file now rather than when the cache is released.
            _ = cache.totals()
            if failed.isSet { throw ExitCode.failure }
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
}

/// Whether a writer has failed; the first to fail claims the right to report it.
private final class FailureFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    /// Sets the flag; `true` for the caller that set it first.
    func claim() -> Bool { !value.exchange(true, ordering: .relaxed) }
}
