import Foundation
import MetricsTestKit
import TestImageServer
import Testing
@testable import WebImage

/// One transfer per equal request, tokens per caller, and cancellation that ends only what it should.
@Suite("ImageDownloader coalescing and cancellation", .timeLimit(.minutes(2)))
struct ImageDownloaderCoalescingTests {
    let image = LoadingTest.bytes(40_000, seed: 3)

    @Test func hundredConcurrentCallersShareOneRequest() async throws {
        let metrics = TestMetrics()
        let configuration = LoadingTest.configuration { $0.metricsFactory = metrics }
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let url = server.url("/gate/g/a.png")
                let collector = ResultCollector()
                let tokens = (0..<100).map { downloader.download(url, completion: collector.completion($0)) }
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                server.openGate("g")
                await collector.wait(for: 100)
                #expect(tokens.count == 100)
                #expect(server.log.count("/gate/g/a.png") == 1)
                #expect(collector.results.values.allSatisfy { $0.bytes == image })
                #expect(counter(DownloadMetrics.coalescedLabel, in: metrics) == 99)
                #expect(counter(DownloadMetrics.requestsLabel, in: metrics) == 1)
                #expect(counter(DownloadMetrics.bytesLabel, in: metrics) == Int64(image.count))
            }
        }
    }

    @Test func differentHeadersMakeSeparateTransfers() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let collector = ResultCollector()
                downloader.download(url, context: DownloadContext(headers: ["X-Variant": "1"]),
                                    completion: collector.completion(0))
                downloader.download(url, context: DownloadContext(headers: ["x-variant": "1"]),
                                    completion: collector.completion(1))
                downloader.download(url, context: DownloadContext(headers: ["X-Variant": "2"]),
                                    completion: collector.completion(2))
                await server.expectEventually { $0.count("/gate/g/a.png") == 2 }
                server.openGate("g")
                await collector.wait(for: 3)
                #expect(server.log.count("/gate/g/a.png") == 2)
                let variants = Set(server.log.requests.compactMap { $0.header("X-Variant") })
                #expect(variants == ["1", "2"])
            }
        }
    }

    @Test func cancellingEveryCallerClosesTheConnection() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let collector = ResultCollector()
                let tokens = (0..<3).map { downloader.download(url, completion: collector.completion($0)) }
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                tokens[0].cancel()
                tokens[1].cancel()
                #expect(collector.results.count == 2)
                #expect(server.log.clientClosedPaths.isEmpty)
                tokens[2].cancel()
                await collector.wait(for: 3)
                #expect(collector.results.values.allSatisfy { $0.errorCode == .cancelled })
                await server.expectEventually { $0.clientClosedPaths == ["/gate/g/a.png"] }
            }
        }
    }

    @Test func cancellingOneCallerLeavesTheOtherIntact() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let collector = ResultCollector()
                let first = downloader.download(url, completion: collector.completion(0))
                downloader.download(url, completion: collector.completion(1))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                first.cancel()
                first.cancel()
                #expect(collector.result(0)?.errorCode == .cancelled)
                server.openGate("g")
                await collector.wait(for: 2)
                #expect(collector.result(1)?.bytes == image)
                #expect(server.log.count("/gate/g/a.png") == 1)
                #expect(server.log.clientClosedPaths.isEmpty)
            }
        }
    }

    @Test func cancellingTheSwiftTaskCancelsTheDownload() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let task = Task { try await downloader.download(url) }
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                task.cancel()
                let error = await LoadingTest.failure { try await task.value }
                #expect(error?.code == .cancelled)
                await server.expectEventually { $0.clientClosedPaths == ["/gate/g/a.png"] }
            }
        }
    }

    @Test func aCallerAfterCancellationStartsAFreshTransfer() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let collector = ResultCollector()
                downloader.download(url, completion: collector.completion(0)).cancel()
                await collector.wait(for: 1)
                server.openGate("g")
                let response = try await downloader.download(url)
                #expect(response.data == image)
                #expect(collector.result(0)?.errorCode == .cancelled)
            }
        }
    }

    @Test func lateJoinerGetsTheSameResultAndLaterProgress() async throws {
        try await LoadingTest.withServer { server in
            let big = LoadingTest.bytes(300_000, seed: 9)
            server.serve("big.png", data: big, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/big.png")
                let collector = ResultCollector()
                let early = Recorder<Int64>()
                let late = Recorder<ImageLoadProgress>()
                downloader.download(url, progress: { early.append($0.receivedBytes) },
                                    completion: collector.completion(0))
                await server.expectEventually { $0.count("/gate/g/big.png") == 1 }
                downloader.download(url, options: .progressiveLoad, progress: { late.append($0) },
                                    completion: collector.completion(1))
                server.openGate("g")
                await collector.wait(for: 2)
                #expect(collector.result(0)?.bytes == big)
                #expect(collector.result(1)?.bytes == big)
                #expect(early.all.last == Int64(big.count))
                #expect(late.all.last?.receivedBytes == Int64(big.count))
                #expect(late.all.allSatisfy { $0.partialData == big.prefix(Int($0.receivedBytes)) })
                #expect(server.log.count("/gate/g/big.png") == 1)
            }
        }
    }

    @Test func cancelAllEndsQueuedAndRunningDownloads() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            let configuration = LoadingTest.configuration { $0.maxConcurrentDownloads = 1 }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                downloader.download(server.url("/gate/g/a.png"), completion: collector.completion(0))
                downloader.download(server.url("/files/a.png?queued"), completion: collector.completion(1))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                #expect(downloader.queuedCount == 1)
                downloader.cancelAll()
                await collector.wait(for: 2)
                #expect(collector.results.values.allSatisfy { $0.errorCode == .cancelled })
                await server.expectEventually { $0.clientClosedPaths == ["/gate/g/a.png"] }
                #expect(server.log.count("/files/a.png") == 0)
            }
        }
    }
}
