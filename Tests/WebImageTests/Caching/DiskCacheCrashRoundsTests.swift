import Foundation
import TestImageServer
import Testing
@_spi(Instrumentation) @testable import WebImage

/// Rounds of `kill -9` in the middle of concurrent stores, each followed by reading the whole cache back.
///
/// Every round starts `webimage cache _write` with four writer threads on the same folder, cycling through the same
/// 42 keys (so most stores replace an entry that an earlier round, or another writer at the same moment, wrote with
/// another size), waits until a few keys are reported stored, and kills the process with SIGKILL while the other
/// writers are in the middle of a store.
/// The round count comes from `WEBIMAGE_CRASH_ROUNDS` (default 12, to keep CI quick under ThreadSanitizer);
/// `scripts/crash-rounds` runs 100.
@Suite("DiskCache crash rounds", .serialized)
struct DiskCacheCrashRoundsTests {
    /// Entry sizes by round: an entry replacing one from the round before differs from it in size.
    static let sizes = [24_000, 48_008, 96_016, 150_000, 260_000]
    static let writers = 4
    /// The writers cycle through this many keys, so the folder stays small however long a round runs. Not a
    /// multiple of the writer count: writers 0 and 2 (1 and 3) share keys, so stores of one key race.
    static let keys = 42

    static var rounds: Int {
        ProcessInfo.processInfo.environment["WEBIMAGE_CRASH_ROUNDS"].flatMap(Int.init).map { max(1, $0) } ?? 12
    }

    /// What one look at the folder after a kill found.
    struct Survey {
        var entries = 0
        var corrupt = 0
        var temporaryFiles: Set<String> = []
        var strangers: [String] = []
        var folderReadable = false
        var missingReported: [String] = []
    }

    /// Reads every entry of the folder back through a fresh cache and checks its bytes.
    static func survey(_ folder: TemporaryFolder, reported: Set<String>) -> Survey {
        var survey = Survey()
        guard let names = FileSystem.contentsOfDirectory(folder.path) else { return survey }
        survey.folderReadable = true
        for name in names where DiskEntryName(fileName: name) == nil && name != DiskTotalsFile.name {
            if name.hasPrefix(DiskFolder.temporaryPrefix) {
                survey.temporaryFiles.insert(name)
            } else {
                survey.strangers.append(name)
            }
        }
        let cache = makeDiskCache(folder)
        var seen: Set<String> = []
        for metadata in cache.enumerateEntriesForTest() {
            seen.insert(metadata.key)
            guard let data = cache.data(forKey: metadata.key), sizes.contains(data.count),
                  data == WebImageTool.payload(forKey: metadata.key, size: data.count) else {
                survey.corrupt += 1
                continue
            }
            survey.entries += 1
        }
        survey.corrupt += cache.statistics.damagedEntries
        survey.missingReported = reported.subtracting(seen).sorted()
        return survey
    }

    @Test("kill -9 during concurrent stores: every round reads back with 0 corrupt entries and a readable folder")
    func killRounds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var reported: Set<String> = []
        var totals = (stored: 0, survived: 0)
        var interrupted: Set<String> = []
        for round in 0..<Self.rounds {
            let size = Self.sizes[round % Self.sizes.count]
            var arguments = ["cache", "_write", "--cache-dir", folder.path, "--size", String(size), "--prefix", "k",
                             "--writers", String(Self.writers), "--keys", String(Self.keys)]
            // fsync on every other round: the kill then most likely lands between creating a file and renaming it.
            if round % 2 == 1 { arguments.append("--sync") }
            let process = try WebImageTool.start(arguments)
            let wanted = 1 + round % 7
            let lines = await WebImageTool.readLines(from: try #require(process.outputPipe), count: wanted)
            process.send(SIGKILL)
            #expect(await process.waitForExit() == 128 + SIGKILL, "round \(round) was killed, not finished")
            #expect(lines.count >= wanted, "lines that arrive together are all read")
            reported.formUnion(lines)
            totals.stored += lines.count

            let survey = Self.survey(folder, reported: reported)
            #expect(survey.folderReadable, "round \(round)")
            #expect(survey.corrupt == 0, "round \(round)")
            #expect(survey.strangers.isEmpty, "round \(round): \(survey.strangers)")
            #expect(survey.missingReported.isEmpty, "round \(round): stored, then lost: \(survey.missingReported)")
            #expect(survey.entries >= reported.count)
            totals.survived = survey.entries
            interrupted.formUnion(survey.temporaryFiles)
        }
        // A later scan removes what the kills left half-written.
        var configuration = DiskCache.Configuration(sweepInterval: nil)
        configuration.staleTemporaryAge = -1
        #expect(DiskCache(folder: folder.url, configuration: configuration).count == totals.survived)
        #expect(folder.names().allSatisfy { DiskEntryName(fileName: $0) != nil })
        print("crash rounds: \(Self.rounds) rounds of kill -9, \(Self.writers) writers; \(totals.stored) stores "
              + "reported done before the kills (\(reported.count) distinct keys), all of them read back; "
              + "\(interrupted.count) stores cut off mid-write (temporary files, removed by a later scan once stale); "
              + "\(totals.survived) entries intact at the end; 0 corrupt entries, 0 unreadable folders")
    }

    @Test("concurrent writers on a full file system: the failing store is io, every file left is a whole entry",
          .enabled(if: SmallFileSystem.isAvailable, "needs root to mount a small tmpfs"))
    func concurrentWritersOnAFullDisk() async throws {
        let disk = try SmallFileSystem(bytes: 512 * 1024)
        defer { disk.unmount() }
        let result = try await WebImageTool.run([
            "cache", "_write", "--cache-dir", disk.folder.path, "--size", "40000", "--prefix", "full-",
            "--writers", "4", "--count", "1000",
        ])
        #expect(result.status == 1)
        let errors = result.standardError.split(separator: "\n")
        #expect(errors.count == 1, "one writer reports, the others stop")
        #expect(errors.first?.hasPrefix("webimage: io: cannot write a cache entry") == true)
        #expect(errors.first?.contains("No space left on device") == true)
        let stored = Set(result.standardOutput.split(separator: "\n").map(String.init))
        #expect(stored.count >= 4)
        #expect(disk.folder.names().count == stored.count, "no partial or temporary file is left")
        let cache = makeDiskCache(disk.folder)
        #expect(cache.count == stored.count)
        for key in stored { #expect(cache.data(forKey: key) == WebImageTool.payload(forKey: key, size: 40000)) }
        #expect(cache.statistics.damagedEntries == 0)
    }
}
