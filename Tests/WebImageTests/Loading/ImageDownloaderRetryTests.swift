import Foundation
import MetricsTestKit
import TestImageServer
import Testing
@testable import WebImage

/// Retries, resumption and the rate limiter.
@Suite("ImageDownloader retries", .timeLimit(.minutes(2)))
struct ImageDownloaderRetryTests {
    let image = LoadingTest.bytes(60_000, seed: 11)

    private func retrying(_ retries: Int, resume: Bool = true) -> ImageDownloaderConfiguration {
        LoadingTest.configuration {
            $0.retryPolicy = RetryPolicy(maximumRetries: retries, initialDelay: .zero, jitter: 0,
                                         resumesInterruptedTransfers: resume)
        }
    }

    @Test func serverErrorsAreRetriedUntilSuccess() async throws {
        let metrics = TestMetrics()
        var configuration = retrying(3)
        configuration.metricsFactory = metrics
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let response = try await downloader.download(server.url("/flaky/a.png?failures=2"))
                #expect(response.data == image)
                #expect(server.log.count("/flaky/a.png") == 3)
                #expect(counter(DownloadMetrics.retriesLabel, in: metrics) == 2)
                #expect(counter(DownloadMetrics.requestsLabel, in: metrics) == 3)
            }
        }
    }

    @Test func retriesStopAtTheConfiguredCount() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(retrying(1)) { downloader in
                let error = await LoadingTest.failure {
                    try await downloader.download(server.url("/flaky/a.png?failures=5&status=500"))
                }
                #expect(error?.code == .invalidDownloadStatusCode)
                #expect(server.log.count("/flaky/a.png") == 2)
            }
        }
    }

    @Test(arguments: [400, 404, 410, 429])
    func clientErrorsAreNeverRetried(status: Int) async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withDownloader(retrying(3)) { downloader in
                let error = await LoadingTest.failure { try await downloader.download(server.url("/status/\(status)")) }
                #expect(error?.code == .invalidDownloadStatusCode)
                #expect(server.log.count("/status/\(status)") == 1)
            }
        }
    }

    @Test func noRetryOptionTurnsRetriesOff() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(retrying(3)) { downloader in
                let error = await LoadingTest.failure {
                    try await downloader.download(server.url("/flaky/a.png?failures=1"), options: .noRetry)
                }
                #expect(error?.code == .invalidDownloadStatusCode)
                #expect(server.log.count("/flaky/a.png") == 1)
            }
        }
    }

    @Test func resetConnectionsAreRetried() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(retrying(2)) { downloader in
                let error = await LoadingTest.failure { try await downloader.download(server.url("/reset/a.png")) }
                #expect(error?.code == .connectionFailed)
                #expect(server.log.count("/reset/a.png") == 3)
            }
        }
    }

    @Test func timeoutsAreRetried() async throws {
        let metrics = TestMetrics()
        var configuration = retrying(1)
        configuration.timeout = .milliseconds(300)
        configuration.metricsFactory = metrics
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let error = await LoadingTest.failure { try await downloader.download(server.url("/stall/a.png")) }
                #expect(error?.code == .timedOut)
                // On a busy machine an attempt may time out before its request reaches the server, so the
                // attempts are counted on the client side.
                #expect(counter(DownloadMetrics.requestsLabel, in: metrics) == 2)
                #expect(counter(DownloadMetrics.retriesLabel, in: metrics) == 1)
            }
        }
    }

    @Test func brokenBodyResumesWithRangeAndIfRange() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png", etag: "\"strong-1\"")
            try await LoadingTest.withDownloader(retrying(2)) { downloader in
                let response = try await downloader.download(server.url("/short-once/a.png"))
                #expect(response.data == image)
                #expect(response.metadata.statusCode == 200)
                let requests = server.log.requests(for: "/short-once/a.png")
                #expect(requests.count == 2)
                #expect(requests[0].header("Range") == nil)
                #expect(requests[1].header("Range") == "bytes=\(image.count / 2)-")
                #expect(requests[1].header("If-Range") == "\"strong-1\"")
            }
        }
    }

    @Test func weakETagsFallBackToLastModified() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png", etag: "W/\"weak\"",
                         lastModified: "Tue, 01 Jan 2030 00:00:00 GMT")
            try await LoadingTest.withDownloader(retrying(1)) { downloader in
                let response = try await downloader.download(server.url("/short-once/a.png"))
                #expect(response.data == image)
                let retry = try #require(server.log.requests(for: "/short-once/a.png").last)
                #expect(retry.header("If-Range") == "Tue, 01 Jan 2030 00:00:00 GMT")
            }
        }
    }

    @Test func theSizeLimitCoversTheResumedBytesAndTheContinuationTogether() async throws {
        // 30 000 bytes of a body of unannounced length arrive, then the connection breaks; the rest (another
        // 30 000) would pass a limit of 40 000 on its own, but not with what came before it.
        var configuration = retrying(2)
        configuration.maximumBodySize = 40_000
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let folder = TestScratch.root.appendingPathComponent("resume-limit-\(UUID())")
                defer { try? FileManager.default.removeItem(at: folder) }
                let cache = ImageCache(folder: folder)
                let manager = ImageManager(cache: cache, loader: downloader)
                let url = server.url("/unsized-reset-once/a.png?after=30000")
                let error = await LoadingTest.failure { try await manager.loadImage(from: url) }
                #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
                let requests = server.log.requests(for: "/unsized-reset-once/a.png")
                #expect(requests.count == 2)
                #expect(requests.last?.header("Range") == "bytes=30000-")
                let key = manager.cacheKey(for: url)
                #expect(await cache.containsData(forKey: key) == false)
                #expect(await cache.diskUsage().entries == 0)
                #expect(cache.image(forKey: key) == nil)
            }
        }
    }

    @Test func aResumedBodyWithinTheLimitStillArrivesWhole() async throws {
        var configuration = retrying(2)
        configuration.maximumBodySize = image.count
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let response = try await downloader.download(server.url("/unsized-reset-once/a.png?after=30000"))
                #expect(response.data == image)
                #expect(server.log.requests(for: "/unsized-reset-once/a.png").count == 2)
            }
        }
    }

    @Test func resumingCanBeTurnedOff() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(retrying(1, resume: false)) { downloader in
                let response = try await downloader.download(server.url("/short-once/a.png"))
                #expect(response.data == image)
                #expect(server.log.requests.map { $0.header("Range") } == [nil, nil])
            }
        }
    }

    @Test func tokenBucketAllowsABurstThenSpacesRequests() {
        let start = ContinuousClock.now
        let bucket = TokenBucket(limit: RateLimit(burst: 3, perSecond: 10), now: start)
        #expect(approximately(bucket.reserve(now: start), .zero))
        #expect(approximately(bucket.reserve(now: start), .zero))
        #expect(approximately(bucket.reserve(now: start), .zero))
        #expect(approximately(bucket.reserve(now: start), .milliseconds(100)))
        #expect(approximately(bucket.reserve(now: start), .milliseconds(200)))
        // 0.5 s later five tokens have refilled, two of which pay back what was reserved.
        #expect(approximately(bucket.reserve(now: start + .milliseconds(500)), .zero))
        #expect(approximately(bucket.reserve(now: start + .milliseconds(500)), .zero))
        #expect(approximately(bucket.reserve(now: start + .milliseconds(500)), .zero))
        #expect(approximately(bucket.reserve(now: start + .milliseconds(500)), .milliseconds(100)))
        bucket.refund()
        #expect(approximately(bucket.reserve(now: start + .milliseconds(500)), .milliseconds(100)))
    }

    @Test func tokenBucketNeverHoldsMoreThanItsBurst() {
        let start = ContinuousClock.now
        let bucket = TokenBucket(limit: RateLimit(burst: 2, perSecond: 1), now: start)
        let later = start + .seconds(3600)
        #expect(approximately(bucket.reserve(now: later), .zero))
        #expect(approximately(bucket.reserve(now: later), .zero))
        #expect(approximately(bucket.reserve(now: later), .seconds(1)))
    }

    @Test func rateLimitedDownloaderStillFinishesEverything() async throws {
        let configuration = LoadingTest.configuration { $0.rateLimit = RateLimit(burst: 2, perSecond: 200) }
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                for index in 0..<6 {
                    downloader.download(server.url("/files/a.png?\(index)"), completion: collector.completion(index))
                }
                await collector.wait(for: 6)
                #expect(collector.results.values.allSatisfy { $0.bytes == image })
                #expect(server.log.count("/files/a.png") == 6)
            }
        }
    }

    @Test func backoffGrowsAndIsCapped() {
        let policy = RetryPolicy(maximumRetries: 5, initialDelay: .milliseconds(100), multiplier: 2,
                                 maximumDelay: .milliseconds(350), jitter: 0.5)
        #expect(approximately(policy.baseDelay(beforeRetry: 1), .milliseconds(100)))
        #expect(approximately(policy.baseDelay(beforeRetry: 2), .milliseconds(200)))
        #expect(approximately(policy.baseDelay(beforeRetry: 3), .milliseconds(350)))
        #expect(approximately(policy.delay(beforeRetry: 1, random: 0), .milliseconds(50)))
        #expect(approximately(policy.delay(beforeRetry: 1, random: 1), .milliseconds(150)))
        #expect(policy.isTransient(ImageError(.invalidDownloadStatusCode, ""), statusCode: 502))
        #expect(!policy.isTransient(ImageError(.invalidDownloadStatusCode, ""), statusCode: 404))
        #expect(!policy.isTransient(ImageError(.badImageData, ""), statusCode: 200))
        #expect(policy.isTransient(ImageError(.timedOut, ""), statusCode: nil))
    }

    private func approximately(_ a: Duration, _ b: Duration) -> Bool {
        abs(RetryPolicy.seconds(a) - RetryPolicy.seconds(b)) < 1e-6
    }
}
