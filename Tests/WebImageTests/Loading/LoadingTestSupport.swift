import Foundation
import MetricsTestKit
import TestImageServer
import Testing
@testable import WebImage

/// Helpers shared by the loading tests: a server per test, downloaders that are shut down, deterministic bytes.
enum LoadingTest {
    /// `count` deterministic bytes that start like a PNG, different for each `seed`.
    static func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A].prefix(count))
        var state = UInt32(seed) &* 2_654_435_761 | 1
        while data.count < count {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            data.append(UInt8(truncatingIfNeeded: state))
        }
        return data
    }

    /// Runs `body` with a fresh server that is shut down afterwards.
    static func withServer<T>(_ body: (TestImageServer) async throws -> T) async throws -> T {
        let server = try await TestImageServer.start()
        do {
            let result = try await body(server)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    /// A configuration for tests: no retries unless a test asks, and timeouts that a loaded sanitizer run cannot
    /// miss (a test of a timeout sets its own); everything else default.
    static func configuration(_ change: (inout ImageDownloaderConfiguration) -> Void = { _ in })
        -> ImageDownloaderConfiguration {
        var configuration = ImageDownloaderConfiguration()
        configuration.retryPolicy = .none
        configuration.timeout = .seconds(120)
        configuration.readTimeout = .seconds(120)
        configuration.connectTimeout = .seconds(60)
        change(&configuration)
        return configuration
    }

    /// A request for `url` whose total timeout a loaded sanitizer run cannot miss (the library's default, 15 s, was
    /// missed by a 1 KB load in a ThreadSanitizer run); a test of a timeout sets its own.
    static func request(_ url: URL) -> ImageLoadRequest {
        var request = ImageLoadRequest(url: url)
        request.timeout = .seconds(120)
        return request
    }

    /// Runs `body` with a downloader that is shut down afterwards.
    static func withDownloader<T>(_ configuration: ImageDownloaderConfiguration = LoadingTest.configuration(),
                                  _ body: (ImageDownloader) async throws -> T) async throws -> T {
        let downloader = ImageDownloader(configuration: configuration)
        do {
            let result = try await body(downloader)
            try await downloader.shutdown()
            return result
        } catch {
            try? await downloader.shutdown()
            throw error
        }
    }

    /// Runs `body` with an HTTP loader that is shut down afterwards.
    static func withHTTPLoader<T>(_ configuration: HTTPImageLoader.Configuration = .init(readTimeout: .seconds(120),
                                                                                         connectTimeout: .seconds(60)),
                                  _ body: (HTTPImageLoader) async throws -> T) async throws -> T {
        let loader = HTTPImageLoader(configuration: configuration)
        do {
            let result = try await body(loader)
            try await loader.shutdown()
            return result
        } catch {
            try? await loader.shutdown()
            throw error
        }
    }

    /// The `ImageError` `body` throws, or `nil` if it succeeds or throws something else.
    static func failure(isolation: isolated (any Actor)? = #isolation,
                        _ body: () async throws -> some Any) async -> ImageError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? ImageError
        }
    }
}

/// Collects callback-form results and lets a test await them.
final class ResultCollector: Sendable {
    private struct State {
        var results: [Int: Result<ImageLoadResponse, ImageError>] = [:]
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// A completion handler that stores its result under `index`.
    func completion(_ index: Int) -> DownloadCompletion {
        { result in
            let ready = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.results[index] = result
                let count = state.results.count
                var ready: [CheckedContinuation<Void, Never>] = []
                state.waiters.removeAll { waiter in
                    guard waiter.count <= count else { return false }
                    ready.append(waiter.continuation)
                    return true
                }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }
    }

    /// Waits until `count` results arrived.
    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.results.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// The results so far, by index.
    var results: [Int: Result<ImageLoadResponse, ImageError>] { state.withLock { $0.results } }

    /// The result under `index`, if any.
    func result(_ index: Int) -> Result<ImageLoadResponse, ImageError>? { state.withLock { $0.results[index] } }
}

/// A value that several callbacks append to.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

extension Result where Failure == ImageError {
    /// The error code, or `nil` on success.
    var errorCode: ImageError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}

extension Result where Success == ImageLoadResponse, Failure == ImageError {
    /// The response, or `nil` on failure.
    var response: ImageLoadResponse? { try? get() }

    /// The bytes, or `nil` on failure.
    var bytes: Data? {
        if case .success(let response) = self { return response.data }
        return nil
    }
}

/// The total of the counter `label` (those with `dimensions` among theirs, when given) recorded by `metrics`
/// (0 when it was never created).
func counter(_ label: String, dimensions: [(String, String)] = [], in metrics: TestMetrics) -> Int64 {
    metrics.counters(label: label, dimensions: dimensions).reduce(0) { (total: Int64, counter) in
        total + counter.totalValue
    }
}
