import Foundation
import Synchronization
import WebImage

// Throwaway harness: throughput over loopback nginx, cost of a coalesced join, memory per in-flight download.
/// Prints a line at once (print buffers when stdout is a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let base = CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:18089"
let clock = ContinuousClock()

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (Int(fields[1]) ?? 0) * 4096
}

final class Countdown: Sendable {
    private let state: Mutex<(remaining: Int, continuation: CheckedContinuation<Void, Never>?)>
    init(_ count: Int) { state = Mutex((count, nil)) }
    func tick() {
        let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.remaining -= 1
            if s.remaining == 0 { defer { s.continuation = nil }; return s.continuation }
            return nil
        }
        c?.resume()
    }
    func wait() async {
        await withCheckedContinuation { c in
            let done = state.withLock { s -> Bool in
                if s.remaining <= 0 { return true }
                s.continuation = c
                return false
            }
            if done { c.resume() }
        }
    }
}

func url(_ path: String) -> URL {
    guard let url = URL(string: base + path) else {
        say("bad base URL \(base)")
        exit(2)
    }
    return url
}

let urls = (0..<200).map { url("/img\(String(format: "%03d", $0)).jpg") }

// 1. Throughput: 200 × 100 KB, 8 at a time.
do {
    var configuration = ImageDownloaderConfiguration()
    configuration.maxConcurrentDownloads = 8
    configuration.retryPolicy = .none
    let downloader = ImageDownloader(configuration: configuration)
    var times: [Double] = []
    for run in 0..<8 {
        let start = clock.now
        let countdown = Countdown(urls.count)
        let bytes = Atomic<Int>(0)
        for url in urls {
            downloader.download(url) { result in
                if case .success(let r) = result { bytes.add(r.data.count, ordering: .relaxed) }
                countdown.tick()
            }
        }
        await countdown.wait()
        let elapsed = seconds(clock.now - start)
        if run > 0 { times.append(elapsed) }  // run 0 warms the connection pool
        if bytes.load(ordering: .relaxed) != 200 * 102_400 { say("warning: short read in run \(run)") }
    }
    times.sort()
    say(String(format: "throughput: 200 x 100 KB, 8 at a time: median %.1f ms, min %.1f ms (%.0f files/s)",
                 times[times.count / 2] * 1000, times[0] * 1000, 200 / times[times.count / 2]))
    try await downloader.shutdown()
}

// 2. Cost of a coalesced join (and of cancelling a joined token) on a transfer held open by a dripping response.
do {
    let downloader = ImageDownloader()
    let dripURL = url("/drip/img000.jpg")
    let first = downloader.download(dripURL) { _ in }
    let n = 100_000
    var tokens: [DownloadToken] = []
    tokens.reserveCapacity(n)
    let before = residentBytes()
    let start = clock.now
    for _ in 0..<n { tokens.append(downloader.download(dripURL) { _ in }) }
    let joinTime = seconds(clock.now - start)
    let after = residentBytes()
    let cancelStart = clock.now
    for token in tokens { token.cancel() }
    let cancelTime = seconds(clock.now - cancelStart)
    first.cancel()
    say(String(format: "coalesced join: %.2f µs each (%d joins), %.0f bytes each; cancel of a joined caller: %.2f µs",
                 joinTime / Double(n) * 1e6, n, Double(after - before) / Double(n), cancelTime / Double(n) * 1e6))
    try await downloader.shutdown()
}

// 3. Memory per in-flight download: N transfers each holding a connection to a response dripping 64 B/s.
for n in [200, 1000] {
    var configuration = ImageDownloaderConfiguration()
    configuration.maxConcurrentDownloads = n
    configuration.retryPolicy = .none
    let http = HTTPImageLoader(configuration: .init(maximumConnectionsPerHost: n))
    let downloader = ImageDownloader(configuration: configuration, loaders: ImageLoaders([http]))
    let stream = downloader.eventStream()
    let before = residentBytes()
    for i in 0..<n {
        downloader.download(url("/drip/img\(String(format: "%03d", i % 200)).jpg?\(i)")) { _ in }
    }
    var responses = 0
    var failures: [String: Int] = [:]
    for await event in stream {
        switch event {
        case .receivedResponse: responses += 1
        case .finished(_, let error?): failures[error.rawValue, default: 0] += 1
        default: break
        }
        if responses + failures.values.reduce(0, +) == n { break }
    }
    if !failures.isEmpty { say("in flight: \(n) downloads: failures \(failures)") }
    let during = residentBytes()
    say(String(format: "in flight: %d downloads with response head received: %.1f KB RSS each", n,
                 Double(during - before) / Double(n) / 1024))
    downloader.cancelAll()
    try await http.shutdown()
}

// 4. Memory per queued (not yet started) download.
do {
    var configuration = ImageDownloaderConfiguration()
    configuration.maxConcurrentDownloads = 1
    let downloader = ImageDownloader(configuration: configuration)
    let n = 100_000
    var tokens: [DownloadToken] = []
    tokens.reserveCapacity(n)
    let queuedURLs = (0..<n).map { url("/drip/img000.jpg?\($0)") }
    let before = residentBytes()
    let start = clock.now
    for queuedURL in queuedURLs { tokens.append(downloader.download(queuedURL) { _ in }) }
    let enqueueTime = seconds(clock.now - start)
    let after = residentBytes()
    say(String(format: "queued: %.2f µs to enqueue a new transfer, %.0f bytes each (%d queued)",
                 enqueueTime / Double(n) * 1e6, Double(after - before) / Double(n), n))
    downloader.cancelAll()
    try await downloader.shutdown()
}
