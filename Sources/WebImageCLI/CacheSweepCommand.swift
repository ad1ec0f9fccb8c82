import ArgumentParser
import Foundation
import Synchronization
import WebImage

extension CacheCommand {
    /// Hidden: sweeps the folder down to `--max-size`, printing one line per chunk of the walk (`chunk N`) and
    /// pausing `--pause` milliseconds after each, so that a test can kill it with SIGKILL in the middle of a sweep
    /// and check what the next process finds. The last line is the report as JSON.
    struct SweepEntries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "_sweep", shouldDisplay: false)
        @OptionGroup var location: Location

        @Option(name: .customLong("max-size"), help: "Most bytes to keep.") var maxSize: Int
        @Option(help: "Milliseconds to wait after each chunk.") var pause = 0

        func run() async throws {
            var configuration = DiskCache.Configuration(maxAge: nil, sizeLimit: maxSize, trimTarget: 1, sweepInterval: nil)
            let chunks = ChunkCounter()
            configuration.sweepChunkObserver = { [pause] _ in
                FileHandle.standardOutput.write(Data("chunk \(chunks.next())\n".utf8))
                if pause > 0 { usleep(useconds_t(pause * 1000)) }
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
