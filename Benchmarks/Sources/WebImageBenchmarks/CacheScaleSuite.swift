import Foundation
import Synchronization
import WebImage

/// The disk cache at a million entries (issue 18), each step in a process of its own so that "first" means the
/// first lookup of a fresh process:
///
/// - `fill FOLDER COUNT`: stores COUNT entries of 2 KB through `DiskCache.store` (two threads).
/// - `first FOLDER LABEL`: opens the cache, times the first hit, the first miss and `totals()`, and reports the
///   resident memory after them; beside them the same through a plain directory of files (`lstat` of one path),
///   the limit any file-per-entry cache can reach.
/// - `trim FOLDER`: trims to half the bytes while a second thread keeps looking up (hits among the newest half,
///   and misses), and reports the trim's duration and the lookups' latency percentiles during it, beside `lstat`
///   of one path measured the same way.
///
/// Wall-clock times (the work is file-system calls, not CPU), page cache warm.
enum CacheScaleSuite {
    static func key(_ index: Int) -> String { "https://img.example.com/r/\(index).jpg" }

    static func configuration() -> DiskCache.Configuration {
        DiskCache.Configuration(maxAge: nil, sweepInterval: nil)
    }

    static func run(_ arguments: [String]) throws {
        guard arguments.count >= 2 else { throw CocoaError(.fileNoSuchFile) }
        let folder = URL(fileURLWithPath: arguments[1], isDirectory: true)
        switch arguments[0] {
        case "fill": try fill(folder, count: Int(arguments[2]) ?? 0)
        case "first": first(folder, label: arguments[2])
        case "trim": trim(folder)
        default: throw CocoaError(.fileNoSuchFile)
        }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func emit(_ name: String, _ implementation: String, _ value: Double, _ unit: String) {
        Measurement(suite: "cache-scale", name: name, implementation: implementation, value: value, unit: unit).emit()
    }

    static func fill(_ folder: URL, count: Int) throws {
        let cache = DiskCache(folder: folder, configuration: configuration())
        let payload = Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let start = now()
        let failures = Shared(0)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for index in stride(from: worker, to: count, by: 2) {
                do { try cache.store(payload, forKey: key(index)) } catch { failures.withLock { $0 += 1 } }
                if worker == 0, index % 100_000 == 0 {
                    FileHandle.standardError.write(Data("filled \(index)\n".utf8))
                }
            }
        }
        let totals = cache.totals()
        FileHandle.standardError.write(Data(
            "filled \(count) entries in \(Int(now() - start)) s; totals \(totals.entries) entries, \(totals.bytes) bytes; \(failures.withLock { $0 }) failures\n".utf8))
    }

    static func first(_ folder: URL, label: String) {
        let rssBefore = residentBytes()
        var start = now()
        let cache = DiskCache(folder: folder, configuration: configuration())
        let hit = cache.data(forKey: key(5)) != nil
        let hitTime = now() - start
        start = now()
        let miss = cache.data(forKey: "https://img.example.com/absent.jpg") == nil
        let missTime = now() - start
        start = now()
        let totals = cache.totals()
        let totalsTime = now() - start
        let rss = residentBytes()
        guard hit && miss else {
            FileHandle.standardError.write(Data("unexpected result: hit \(hit) miss \(miss)\n".utf8))
            exit(1)
        }
        let ours = "swift-web-image, \(label)"
        emit("first lookup in a fresh process, hit", ours, hitTime * 1000, "ms")
        emit("first lookup in a fresh process, miss", ours, missTime * 1000, "ms")
        emit("totals() in a fresh process (what `cache stats` reads)", ours + " (\(totals.entries) entries)",
             totalsTime * 1000, "ms")
        emit("resident memory after the first lookups", ours, Double(rss) / 1e6, "MB")
        emit("resident memory growth over the first lookups", ours, Double(rss - rssBefore) / 1e6, "MB")

        // The limit: one `lstat` of the entry's path, and of a missing one, in a plain directory of files.
        let entry = folder.path + "/" + firstEntryFileName(folder)
        var info = stat()
        start = now()
        _ = lstat(entry, &info)
        emit("first lookup in a fresh process, hit", "plain directory, lstat of one path, \(label)", (now() - start) * 1000, "ms")
        start = now()
        _ = lstat(folder.path + "/absent", &info)
        emit("first lookup in a fresh process, miss", "plain directory, lstat of one path, \(label)", (now() - start) * 1000, "ms")
    }

    /// A name of an entry file other than the one looked up (so that its inode is not already cached).
    static func firstEntryFileName(_ folder: URL) -> String {
        guard let directory = opendir(folder.path) else { return "absent" }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { return name }
        }
        return "absent"
    }

    static func trim(_ folder: URL) {
        let cache = DiskCache(folder: folder, configuration: configuration())
        let before = cache.totals()
        let count = before.entries
        let done = Shared(false)
        let samples = Shared((ours: [Double](), plain: [Double](), wrong: 0))
        let reader = Thread {
            var index = 0
            while !done.withLock({ $0 }) {
                index += 1
                // Hits among the newest half (kept by the trim), every fourth a miss.
                let key = index % 4 == 0 ? "https://img.example.com/absent-\(index).jpg"
                    : Self.key(count / 2 + Int.random(in: count / 10..<count / 2))
                var start = now()
                let found = cache.data(forKey: key) != nil
                let ours = now() - start
                let path = folder.path + "/" + (index % 4 == 0 ? "absent-\(index)" : "\(index % 1000)")
                var info = stat()
                start = now()
                _ = lstat(path, &info)
                let plain = now() - start
                samples.withLock {
                    $0.ours.append(ours)
                    $0.plain.append(plain)
                    if found == (index % 4 == 0) { $0.wrong += 1 }
                }
            }
        }
        reader.start()
        let start = now()
        let report = cache.trim(toSize: before.bytes / 2)
        let trimTime = now() - start
        done.withLock { $0 = true }
        usleep(50_000)
        let (ours, plain, wrong) = samples.withLock { ($0.ours.sorted(), $0.plain.sorted(), $0.wrong) }
        func percentile(_ values: [Double], _ fraction: Double) -> Double {
            values.isEmpty ? 0 : values[min(values.count - 1, Int(Double(values.count) * fraction))] * 1000
        }
        emit("trim from \(count) to half the bytes", "swift-web-image (\(report.evictedEntries) entries deleted)",
             trimTime, "s")
        emit("lookup during the trim, p50", "swift-web-image", percentile(ours, 0.5), "ms")
        emit("lookup during the trim, p99", "swift-web-image", percentile(ours, 0.99), "ms")
        emit("lookup during the trim, max", "swift-web-image", percentile(ours, 1), "ms")
        emit("lookup during the trim, p50", "plain directory, lstat of one path", percentile(plain, 0.5), "ms")
        emit("lookup during the trim, p99", "plain directory, lstat of one path", percentile(plain, 0.99), "ms")
        emit("lookup during the trim, max", "plain directory, lstat of one path", percentile(plain, 1), "ms")
        emit("lookups made during the trim", "swift-web-image (\(wrong) wrong answers)", Double(ours.count), "lookups")
        let after = cache.exactTotals()
        emit("entries after the trim (totals file / exact listing)", "swift-web-image",
             Double(report.remainingEntries), "entries, exact \(after.entries)")
    }
}

/// A value shared between the benchmark's threads.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> Result { mutex.withLock(body) }
}
