import CTurboJPEG
import Dispatch
import Foundation
@_spi(Instrumentation) import WebImage

/// The caching benchmarks (issue 4, formerly the CacheBenchmark package): memory cache beside NSCache, disk hits
/// and stores beside plain file I/O, a disk hit plus decode beside reading and decoding with TurboJPEG, sweeps.
///
/// Times are CPU time of the process, best of several runs (the machine is shared; wall clock mostly measures
/// the others); comparisons alternate the two sides run by run so drifting load hits both alike.
enum CacheSuite {
    static func run(data folder: URL) throws {
        memory(threads: 1, operations: 1_000_000)
        memory(threads: 2, operations: 1_000_000)
        try disk()
        try decode(jpeg: folder.appendingPathComponent("cache-photo-800x600.jpg"))
        try sweep()
    }

    static func emit(_ name: String, _ implementation: String, _ value: Double, _ unit: String) {
        Measurement(suite: "cache", name: name, implementation: implementation, value: value, unit: unit).emit()
    }

    static func cpuSeconds() -> Double { Timing.cpuMilliseconds() / 1000 }

    static func best(of runs: Int = 5, _ body: () throws -> Double) rethrows -> Double {
        var fastest = Double.infinity
        for _ in 0..<runs { fastest = min(fastest, try body()) }
        return fastest
    }

    final class Box: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// Gets (everything fits) and sets (half fits, so most sets evict) with the same keys and costs.
    static func memory(threads: Int, operations: Int) {
        let keyCount = 10_000
        let keys = (0..<keyCount).map { "https://example.com/images/photo-\($0).jpg" }
        // NSCache and NSString are not Sendable on Linux; the comparison needs them on two threads, as NSCache
        // is documented to be used, so these references are deliberately shared unchecked.
        nonisolated(unsafe) let nsKeys = keys.map { NSString(string: $0) }
        let boxes = (0..<keyCount).map { Box($0) }
        let costs = (0..<keyCount).map { $0 % 100 + 1 }
        var generator = SystemRandomNumberGenerator()
        let sequence = (0..<operations).map { _ in Int.random(in: 0..<keyCount, using: &generator) }

        func time(_ body: @escaping @Sendable () -> Void) -> Double {
            let start = cpuSeconds()
            DispatchQueue.concurrentPerform(iterations: threads) { _ in body() }
            return (cpuSeconds() - start) / Double(operations * threads) * 1e9
        }
        func compare(_ first: @escaping @Sendable () -> Void, _ second: @escaping @Sendable () -> Void) -> (Double, Double) {
            var fastest = (Double.infinity, Double.infinity)
            for _ in 0..<7 {
                fastest.0 = min(fastest.0, time(first))
                fastest.1 = min(fastest.1, time(second))
            }
            return fastest
        }
        let ours = MemoryCache<String, Box>(limits: .init(costLimit: .max / 2, maxEntryCost: .max / 2))
        nonisolated(unsafe) let theirs = NSCache<NSString, Box>()
        var plain: [String: Box] = [:]
        for index in 0..<keyCount {
            ours.setValue(boxes[index], forKey: keys[index], cost: costs[index])
            theirs.setObject(boxes[index], forKey: nsKeys[index], cost: costs[index])
            plain[keys[index]] = boxes[index]
        }
        let dictionary = plain
        let getPlain = best { time { for index in sequence where dictionary[keys[index]] == nil { print("miss") } } }
        let (getOurs, getTheirs) = compare(
            { for index in sequence where ours.value(forKey: keys[index]) == nil { print("miss") } },
            { for index in sequence where theirs.object(forKey: nsKeys[index]) == nil { print("miss") } })
        let half = costs.reduce(0, +) / 2
        let oursSet = MemoryCache<String, Box>(limits: .init(costLimit: half, maxEntryCost: half))
        nonisolated(unsafe) let theirsSet = NSCache<NSString, Box>()
        theirsSet.totalCostLimit = half
        let (setOurs, setTheirs) = compare(
            { for index in sequence { oursSet.setValue(boxes[index], forKey: keys[index], cost: costs[index]) } },
            { for index in sequence { theirsSet.setObject(boxes[index], forKey: nsKeys[index], cost: costs[index]) } })
        let threadsText = threads == 1 ? "1 thread" : "\(threads) threads"
        emit("memory get, \(threadsText)", "swift-web-image", getOurs, "ns")
        emit("memory get, \(threadsText)", "NSCache", getTheirs, "ns")
        emit("memory get, \(threadsText)", "Dictionary (no lock, no LRU)", getPlain, "ns")
        emit("memory set with eviction, \(threadsText)", "swift-web-image", setOurs, "ns")
        emit("memory set with eviction, \(threadsText)", "NSCache", setTheirs, "ns")
    }

    /// Disk hits beside `Data(contentsOf:)`, stores beside `Data.write(.atomic)`, misses.
    static func disk() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("cache-benchmark-\(getpid())")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let cache = DiskCache(folder: base.appendingPathComponent("cache"), configuration: .init(sweepInterval: nil))
        for size in [10_000, 100_000, 1_000_000] {
            let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let key = "https://example.com/p-\(size).jpg"
            try cache.store(payload, forKey: key)
            let plain = base.appendingPathComponent("plain-\(size).jpg")
            try payload.write(to: plain)
            let repeats = size >= 1_000_000 ? 300 : 3000
            let hit = best {
                let start = cpuSeconds()
                for _ in 0..<repeats where cache.data(forKey: key)?.count != size { print("bad hit") }
                return (cpuSeconds() - start) / Double(repeats) * 1e6
            }
            let direct = try best {
                let start = cpuSeconds()
                for _ in 0..<repeats where try Data(contentsOf: plain).count != size { print("bad read") }
                return (cpuSeconds() - start) / Double(repeats) * 1e6
            }
            emit("disk hit, \(size / 1000) KB", "swift-web-image", hit, "µs")
            emit("disk hit, \(size / 1000) KB", "Data(contentsOf:)", direct, "µs")
        }
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let repeats = 1000
        var ours = 0.0, foundation = 0.0, fresh = 0.0
        for index in 0..<repeats {
            var start = cpuSeconds()
            try cache.store(payload, forKey: "s\(index % 50)")
            ours += cpuSeconds() - start
            start = cpuSeconds()
            try payload.write(to: base.appendingPathComponent("a\(index % 50)"), options: .atomic)
            foundation += cpuSeconds() - start
            start = cpuSeconds()
            try cache.store(payload, forKey: "new\(index)")
            fresh += cpuSeconds() - start
        }
        emit("store 100 KB over an entry", "swift-web-image", ours / Double(repeats) * 1e6, "µs")
        emit("store 100 KB over an entry", "Data.write(.atomic)", foundation / Double(repeats) * 1e6, "µs")
        emit("store 100 KB, new key", "swift-web-image", fresh / Double(repeats) * 1e6, "µs")
        let misses = 1_000_000
        let missKeys = (0..<1000).map { "https://example.com/missing-\($0).jpg" }
        let before = cache.statistics
        let start = cpuSeconds()
        for index in 0..<misses where cache.data(forKey: missKeys[index % 1000]) != nil { print("unexpected hit") }
        emit("disk miss", "swift-web-image", (cpuSeconds() - start) / Double(misses) * 1e9, "ns")
        emit("files opened during 10^6 disk misses", "swift-web-image",
             Double(cache.statistics.fileOpens - before.fileOpens), "opens")
    }

    /// A disk hit plus decode beside reading the file and decoding it with TurboJPEG directly (target ≤ 1.1×).
    static func decode(jpeg file: URL) throws {
        let jpeg = try Data(contentsOf: file)
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("cache-benchmark-decode-\(getpid())")
        defer { try? FileManager.default.removeItem(at: base) }
        let cache = DiskCache(folder: base, configuration: .init(sweepInterval: nil))
        let key = "https://example.com/photo.jpg"
        try cache.store(jpeg, forKey: key)
        let plain = base.appendingPathComponent("plain.jpg")
        try jpeg.write(to: plain)
        guard let handle = tjInitDecompress() else { throw CocoaError(.featureUnsupported) }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        _ = jpeg.withUnsafeBytes { raw in
            tjDecompressHeader3(handle, raw.bindMemory(to: UInt8.self).baseAddress, UInt(raw.count),
                                &width, &height, &subsampling, &colorspace)
        }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
        func decode(_ data: Data) {
            let status = data.withUnsafeBytes { raw in
                pixels.withUnsafeMutableBytes { out in
                    tjDecompress2(handle, raw.bindMemory(to: UInt8.self).baseAddress, UInt(raw.count),
                                  out.bindMemory(to: UInt8.self).baseAddress, width, 0, height, Int32(TJPF_RGBA.rawValue), 0)
                }
            }
            if status != 0 { print("decode failed") }
        }
        let repeats = 2000
        var direct = 0.0, cached = 0.0
        for _ in 0..<repeats {
            var start = cpuSeconds()
            decode(try Data(contentsOf: plain))
            direct += cpuSeconds() - start
            start = cpuSeconds()
            if let data = cache.data(forKey: key) { decode(data) }
            cached += cpuSeconds() - start
        }
        let name = "disk hit + decode, \(width)x\(height) JPEG"
        emit(name, "swift-web-image", cached / Double(repeats) * 1e6, "µs")
        emit(name, "read file + TurboJPEG", direct / Double(repeats) * 1e6, "µs")
    }

    /// Filling, listing and sweeping a cache of 100 000 entries.
    static func sweep() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-benchmark-sweep-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = 100_000
        let writer = DiskCache(folder: folder, configuration: .init(maxAge: nil, sweepInterval: nil))
        let payload = Data(repeating: 7, count: 200)
        var start = cpuSeconds()
        for index in 0..<count { try writer.store(payload, forKey: "https://example.com/img/\(index).png") }
        emit("fill 100 000 entries, per entry", "swift-web-image", (cpuSeconds() - start) / Double(count) * 1e6, "µs")
        start = cpuSeconds()
        let reopened = DiskCache(folder: folder, configuration: .init(maxAge: nil, sweepInterval: nil))
        let total = reopened.totalSize
        emit("first use of 100 000 entries (listing, index)", "swift-web-image", (cpuSeconds() - start) * 1000, "ms")
        start = cpuSeconds()
        _ = reopened.sweep()
        emit("sweep of 100 000 entries, nothing to delete", "swift-web-image", (cpuSeconds() - start) * 1000, "ms")
        let limited = DiskCache(folder: folder, configuration: .init(maxAge: nil, sizeLimit: total - 1, sweepInterval: nil))
        start = cpuSeconds()
        let report = limited.sweep()
        emit("size sweep of 100 000 entries to half (\(report.evictedEntries) deleted)", "swift-web-image",
             (cpuSeconds() - start) * 1000, "ms")
    }
}
