import Foundation
import Synchronization
import WebImage

/// The manager end to end: memory hits (synchronous and async paths), a disk hit beside reading the file and
/// decoding it directly, and 1,000 concurrent loads of one URL with the downloads and decodes counted; and, on its
/// own (``runCold(base:)``, which `run.sh` alternates with aiohttp + Pillow), a cold run of 200 images over
/// loopback HTTP (download, decode, store).
enum ManagerSuite {
    static func run(data: URL, base: URL) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await memoryHits(base: base, folder: folder.appendingPathComponent("memory"))
        try await diskHit(data: data, folder: folder.appendingPathComponent("disk"))
        try await oneURLManyCallers(base: base, folder: folder.appendingPathComponent("many"))
    }

    /// The cold run alone, so that `run.sh` can alternate it with aiohttp + Pillow's and profilers see only it.
    static func runCold(base: URL) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await coldRun(base: base, folder: folder)
    }

    private static func manager(folder: URL, downloader: ImageDownloader) -> ImageManager {
        ImageManager(cache: ImageCache(folder: folder), loader: downloader)
    }

    private static func memoryHits(base: URL, folder: URL) async throws {
        let downloader = ImageDownloader()
        defer { Task { try? await downloader.shutdown() } }
        let manager = manager(folder: folder, downloader: downloader)
        let url = base.appendingPathComponent("img000.jpg")
        _ = try await manager.loadImage(from: url)
        let syncRuns = 1_000_000
        var found = 0
        let syncMS = Timing.median(minimumRuns: 5, minimumSeconds: 1) {
            for _ in 0..<syncRuns where manager.cachedImage(for: url) != nil { found += 1 }
        }
        emit("memory hit, synchronous path (target ≤ 1 µs)", syncMS * 1e6 / Double(syncRuns), unit: "ns/op")
        let asyncRuns = 200_000
        let start = Timing.cpuMilliseconds()
        for _ in 0..<asyncRuns { _ = try await manager.loadImage(from: url) }
        let asyncNS = (Timing.cpuMilliseconds() - start) * 1e6 / Double(asyncRuns)
        emit("memory hit, async loadImage (target ≤ 3 µs)", asyncNS, unit: "ns/op")
        precondition(found > 0)
    }

    private static func diskHit(data: URL, folder: URL) async throws {
        let file = data.appendingPathComponent("photo-800x600.jpg")
        let bytes = try Data(contentsOf: file)
        let cache = ImageCache(folder: folder)
        let manager = ImageManager(cache: cache, loader: ImageLoaders([FileImageLoader()]))
        let url = file
        _ = try await manager.loadImage(from: url, options: [.waitStoreCache])
        var samples: [Double] = [], direct: [Double] = []
        for _ in 0..<60 {
            cache.memory.removeAll()
            var before = Timing.cpuMilliseconds()
            let result = try await manager.loadImage(from: url)
            samples.append(Timing.cpuMilliseconds() - before)
            precondition(result.cacheType == .disk)
            before = Timing.cpuMilliseconds()
            _ = try ImageCoders.shared.decode(try Data(contentsOf: file))
            direct.append(Timing.cpuMilliseconds() - before)
        }
        _ = bytes
        emit("disk hit, 800×600 JPEG (target ≤ 1.1× read + decode)", median(samples))
        emit("disk hit, 800×600 JPEG (target ≤ 1.1× read + decode)", median(direct),
             implementation: "read file + ImageCoders.decode")
    }

    private static func coldRun(base: URL, folder: URL) async throws {
        let downloader = ImageDownloader()
        defer { Task { try? await downloader.shutdown() } }
        var rates: [Double] = []
        for round in 0..<5 {
            let manager = manager(folder: folder.appendingPathComponent("cold-\(round)"), downloader: downloader)
            let urls = (0..<200).map { base.appendingPathComponent(String(format: "img%03d.jpg", $0)) }
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    guard next < urls.count else { return }
                    let url = urls[next]
                    next += 1
                    group.addTask { _ = try await manager.loadImage(from: url, options: [.waitStoreCache]) }
                }
                for _ in 0..<8 { add() }
                while try await group.next() != nil { add() }
            }
            let seconds = Double(start.duration(to: .now).components.attoseconds) / 1e18
                + Double(start.duration(to: .now).components.seconds)
            if round > 0 { rates.append(200 / seconds) }
        }
        emit("cold: 200 JPEGs over loopback HTTP, download + decode + store, 8 at a time", median(rates),
             unit: "images/s")
    }

    private static func oneURLManyCallers(base: URL, folder: URL) async throws {
        let downloader = ImageDownloader()
        defer { Task { try? await downloader.shutdown() } }
        let counter = CountingDecoder()
        let manager = ImageManager(cache: ImageCache(folder: folder), loader: downloader,
                                   coders: ImageCoders(coders: [counter]))
        // Transfers are counted from the downloader's events (a few per transfer, far under the stream's buffer).
        let transfers = downloader.eventStream()
        let url = base.appendingPathComponent("img001.jpg")
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 { group.addTask { _ = try await manager.loadImage(from: url) } }
            try await group.waitForAll()
        }
        let elapsed = start.duration(to: .now)
        var downloads = 0
        for await event in transfers {
            if case .started = event { downloads += 1 }
            if case .finished = event { break }
        }
        emit("1,000 concurrent loads of one URL: downloads", Double(downloads), unit: "count")
        emit("1,000 concurrent loads of one URL: decodes", Double(counter.count), unit: "count")
        emit("1,000 concurrent loads of one URL: wall time", Double(elapsed.components.attoseconds) / 1e15
             + Double(elapsed.components.seconds) * 1e3)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    private static func emit(_ name: String, _ value: Double, implementation: String = "swift-web-image",
                             unit: String = "ms") {
        Measurement(suite: "manager", name: name, implementation: implementation, value: value, unit: unit).emit()
    }
}

/// The built-in coders, counting decodes.
final class CountingDecoder: ImageCoder {
    private let decodes = Atomic<Int>(0)
    var count: Int { decodes.load(ordering: .relaxed) }

    func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) != .unknown }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        decodes.add(1, ordering: .relaxed)
        return try ImageCoders.shared.decode(data, options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { true }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try ImageCoders.shared.encode(image, as: format, options: options)
    }
}
