import Foundation
import WebImage

/// The CPU one origin fetch costs: `count` sequential loads of one URL through one `HTTPImageLoader` (one kept
/// connection, as `curl` reusing its connection for the same URL list), after a warm-up, measured as this process's
/// user + system time from `getrusage`. run.sh times curl on the same URL beside it.
enum FetchCostSuite {
    static func run(url: URL, count: Int) async throws {
        let loader = HTTPImageLoader(configuration: .init(readTimeout: .seconds(60), connectTimeout: .seconds(10),
                                                          decompressesBodies: false))
        var request = ImageLoadRequest(url: url)
        request.maximumBodySize = 200 * 1024 * 1024
        var bytes = 0
        for _ in 0..<5 { bytes = try await loader.load(request, progress: nil).data.count }
        let before = cpuSeconds()
        let start = ContinuousClock.now
        for _ in 0..<count {
            let loaded = try await loader.load(request, progress: nil)
            guard loaded.data.count == bytes else {
                throw ImageError(.invalidDownloadResponse, "short read: \(loaded.data.count) of \(bytes) bytes")
            }
        }
        let cpu = cpuSeconds() - before
        let wall = ContinuousClock.now - start
        try await loader.shutdown()
        let name = "fetch of \(bytes) bytes"
        Measurement(suite: "fetch", name: name + ", CPU", implementation: "swift-web-image",
                    value: cpu / Double(count) * 1000, unit: "ms").emit()
        Measurement(suite: "fetch", name: name + ", wall", implementation: "swift-web-image",
                    value: LoadingSuite.seconds(wall) / Double(count) * 1000, unit: "ms").emit()
    }

    /// User plus system seconds this process has used.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
