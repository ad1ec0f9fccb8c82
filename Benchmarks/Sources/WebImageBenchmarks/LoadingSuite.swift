import Foundation
import WebImage

/// The loading benchmarks (issue 5, formerly Benchmarks/loading): throughput over loopback from nginx beside
/// curl and aiohttp (run.sh runs those), the cost of a coalesced join, memory per in-flight and queued download.
/// `base` is the nginx address run.sh started, serving `/imgNNN.jpg` (100 KB each) and `/drip/…` at 64 B/s.
enum LoadingSuite {
    static func run(base: String) async throws {
        try await throughput(base: base)
        try await coalescedJoin(base: base)
        for count in [200, 1000] { try await inFlight(base: base, count: count) }
        try await queued(base: base)
    }

    static func emit(_ name: String, _ value: Double, _ unit: String) {
        Measurement(suite: "loading", name: name, implementation: "swift-web-image", value: value, unit: unit).emit()
    }

    static func url(_ base: String, _ path: String) throws -> URL {
        guard let url = URL(string: base + path) else { throw ImageError(.invalidURL, "bad base URL \(base)") }
        return url
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// 200 × 100 KB, 8 at a time; wall-clock median of 7 rounds after one that warms the connection pool.
    static func throughput(base: String) async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 8
        configuration.retryPolicy = .none
        let downloader = ImageDownloader(configuration: configuration)
        let urls = try (0..<200).map { try url(base, "/img\(String(format: "%03d", $0)).jpg") }
        var times: [Double] = []
        for round in 0..<8 {
            let start = ContinuousClock.now
            let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
                for url in urls { group.addTask { try await downloader.download(url).data.count } }
                return try await group.reduce(0, +)
            }
            guard bytes == 200 * 102_400 else { throw ImageError(.invalidDownloadResponse, "short read: \(bytes) bytes") }
            if round > 0 { times.append(seconds(ContinuousClock.now - start)) }
        }
        try await downloader.shutdown()
        times.sort()
        Measurement(suite: "loading", name: "200 × 100 KB from nginx on loopback, 8 at a time",
                    implementation: "swift-web-image", value: times[times.count / 2] * 1000, unit: "ms").emit()
    }

    /// 100 000 callers joining one transfer held open by a dripping response: time and memory per join, and
    /// the time to cancel a joined caller.
    static func coalescedJoin(base: String) async throws {
        let downloader = ImageDownloader()
        let drip = try url(base, "/drip/img000.jpg")
        let first = downloader.download(drip, completion: { _ in })
        let count = 100_000
        var tokens: [DownloadToken] = []
        tokens.reserveCapacity(count)
        let before = residentBytes()
        var start = ContinuousClock.now
        for _ in 0..<count { tokens.append(downloader.download(drip, completion: { _ in })) }
        let join = seconds(ContinuousClock.now - start)
        let after = residentBytes()
        start = ContinuousClock.now
        for token in tokens { token.cancel() }
        let cancel = seconds(ContinuousClock.now - start)
        first.cancel()
        try await downloader.shutdown()
        emit("coalesced join of a running transfer", join / Double(count) * 1e6, "µs")
        emit("coalesced join, memory", Double(after - before) / Double(count), "bytes")
        emit("cancel of a joined caller", cancel / Double(count) * 1e6, "µs")
    }

    /// `count` transfers each holding a connection to a response dripping 64 B/s: resident memory per download
    /// once every response head has arrived.
    static func inFlight(base: String, count: Int) async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.maxConcurrentDownloads = count
        configuration.retryPolicy = .none
        let http = HTTPImageLoader(configuration: .init(maximumConnectionsPerHost: count))
        let downloader = ImageDownloader(configuration: configuration, loaders: ImageLoaders([http]))
        let stream = downloader.eventStream()
        let before = residentBytes()
        for index in 0..<count {
            downloader.download(try url(base, "/drip/img\(String(format: "%03d", index % 200)).jpg?\(index)"),
                                completion: { _ in })
        }
        var settled = 0
        for await event in stream {
            switch event {
            case .receivedResponse, .finished(_, error: .some(_)): settled += 1
            default: break
            }
            if settled == count { break }
        }
        let during = residentBytes()
        downloader.cancelAll()
        try await http.shutdown()
        emit("\(count) downloads in flight, memory each", Double(during - before) / Double(count) / 1024, "KB")
    }

    /// 100 000 downloads queued behind one slot: time to enqueue and memory per queued download.
    static func queued(base: String) async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        let downloader = ImageDownloader(configuration: configuration)
        let count = 100_000
        let urls = try (0..<count).map { try url(base, "/drip/img000.jpg?\($0)") }
        var tokens: [DownloadToken] = []
        tokens.reserveCapacity(count)
        let before = residentBytes()
        let start = ContinuousClock.now
        for url in urls { tokens.append(downloader.download(url, completion: { _ in })) }
        let enqueue = seconds(ContinuousClock.now - start)
        let after = residentBytes()
        downloader.cancelAll()
        try await downloader.shutdown()
        emit("enqueue a download behind a full queue", enqueue / Double(count) * 1e6, "µs")
        emit("queued download, memory", Double(after - before) / Double(count), "bytes")
    }
}
