import ArgumentParser
import Foundation
import Synchronization
import WebImage

extension CacheCommand {
    /// Hidden: sweeps the folder down to `--max-size`, printing one line per chunk of the walk (`chunk N`), so
    /// that a test can kill it with SIGKILL in the middle of a sweep and check what the next process finds. With
    /// `--hold-after N` it stops after chunk N until it is killed: the kill then lands mid-sweep however late the
    /// test reads the lines (a pause after each chunk did not, on a loaded machine). Held for two minutes without
    /// a kill, it exits with status 3. The last line is the report as JSON.
    struct SweepEntries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "_sweep", shouldDisplay: false)
        @OptionGroup var location: Location

        @Option(name: .customLong("max-size"), help: "Most bytes to keep.") var maxSize: Int
        @Option(name: .customLong("hold-after"), help: "Stop after this chunk and wait to be killed.")
        var holdAfter: Int?

        func run() async throws {
            var configuration = DiskCache.Configuration(maxAge: nil, sizeLimit: maxSize, trimTarget: 1, sweepInterval: nil)
            let chunks = ChunkCounter()
            configuration.sweepChunkObserver = { [holdAfter] _ in
                let chunk = chunks.next()
                FileHandle.standardOutput.write(Data("chunk \(chunk)\n".utf8))
                if chunk == holdAfter {
                    sleep(120)
                    Foundation.exit(3)
                }
            }
            let report = DiskCache(folder: location.folder, configuration: configuration).sweep()
            print(#"{"evictedEntries":\#(report.evictedEntries),"remainingEntries":\#(report.remainingEntries)}"#)
        }
    }
}

/// Counts chunks from the sweep's thread.
private final class ChunkCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}
