import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The queue: concurrency limit, FIFO / LIFO, priorities, live changes. Order is observed on the server.
@Suite("ImageDownloader queue", .timeLimit(.minutes(2)))
struct ImageDownloaderQueueTests {
    let image = LoadingTest.bytes(2_000, seed: 5)

    /// Starts a blocking download on gate "g", waits until the server holds it, queues `paths` with their
    /// options, opens the gate, waits for everything and returns the order the server saw after the blocker.
    private func order(of downloads: [(path: String, options: DownloadOptions)],
                       executionOrder: ImageDownloaderConfiguration.ExecutionOrder = .fifo,
                       whileQueued: (ImageDownloader) -> Void = { _ in }) async throws -> [String] {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            let configuration = LoadingTest.configuration {
                $0.maxConcurrentDownloads = 1
                $0.executionOrder = executionOrder
            }
            return try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                downloader.download(server.url("/gate/g/a.png"), completion: collector.completion(-1))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                for (index, download) in downloads.enumerated() {
                    downloader.download(server.url(download.path), options: download.options,
                                        completion: collector.completion(index))
                }
                #expect(downloader.queuedCount == Set(downloads.map(\.path)).count)
                whileQueued(downloader)
                server.openGate("g")
                await collector.wait(for: downloads.count + 1)
                #expect(collector.results.values.allSatisfy { $0.bytes == image })
                return Array(server.log.requests.dropFirst().map(\.uri))
            }
        }
    }

    @Test func fifoByDefault() async throws {
        let seen = try await order(of: [("/files/a.png?1", []), ("/files/a.png?2", []), ("/files/a.png?3", [])])
        #expect(seen == ["/files/a.png?1", "/files/a.png?2", "/files/a.png?3"])
    }

    @Test func lifoWhenAsked() async throws {
        let seen = try await order(of: [("/files/a.png?1", []), ("/files/a.png?2", []), ("/files/a.png?3", [])],
                                   executionOrder: .lifo)
        #expect(seen == ["/files/a.png?3", "/files/a.png?2", "/files/a.png?1"])
    }

    @Test func prioritiesReorderTheQueue() async throws {
        let seen = try await order(of: [
            ("/files/a.png?low1", .lowPriority), ("/files/a.png?normal1", []),
            ("/files/a.png?high1", .highPriority), ("/files/a.png?low2", .lowPriority),
            ("/files/a.png?high2", .highPriority), ("/files/a.png?normal2", []),
        ])
        #expect(seen == ["/files/a.png?high1", "/files/a.png?high2", "/files/a.png?normal1",
                         "/files/a.png?normal2", "/files/a.png?low1", "/files/a.png?low2"])
    }

    @Test func aHighPriorityJoinerRaisesTheSharedTransfer() async throws {
        let seen = try await order(of: [
            ("/files/a.png?normal", []), ("/files/a.png?low", .lowPriority), ("/files/a.png?low", .highPriority),
        ])
        #expect(seen == ["/files/a.png?low", "/files/a.png?normal"])
    }

    @Test func priorityFallsBackWhenTheHighCallerLeaves() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            let configuration = LoadingTest.configuration { $0.maxConcurrentDownloads = 1 }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                downloader.download(server.url("/gate/g/a.png"), completion: collector.completion(0))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                downloader.download(server.url("/files/a.png?normal"), completion: collector.completion(1))
                downloader.download(server.url("/files/a.png?shared"), options: .lowPriority,
                                    completion: collector.completion(2))
                let high = downloader.download(server.url("/files/a.png?shared"), options: .highPriority,
                                               completion: collector.completion(3))
                high.cancel()
                server.openGate("g")
                await collector.wait(for: 4)
                #expect(server.log.requests.dropFirst().map(\.uri) == ["/files/a.png?normal", "/files/a.png?shared"])
                #expect(collector.result(2)?.bytes == image)
                #expect(collector.result(3)?.errorCode == .cancelled)
            }
        }
    }

    @Test func maxConcurrencyIsHonoured() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            let configuration = LoadingTest.configuration { $0.maxConcurrentDownloads = 3 }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                for index in 0..<10 {
                    downloader.download(server.url("/gate/g/a.png?\(index)"), completion: collector.completion(index))
                }
                await server.expectEventually { $0.inFlight == 3 }
                #expect(downloader.runningCount == 3)
                #expect(downloader.queuedCount == 7)
                server.openGate("g")
                await collector.wait(for: 10)
                #expect(server.log.count("/gate/g/a.png") == 10)
                #expect(server.log.maxInFlight == 3)
                #expect(downloader.runningCount == 0)
            }
        }
    }

    @Test func defaultConcurrencyIsSix() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                #expect(downloader.maxConcurrentDownloads == 6)
                let collector = ResultCollector()
                for index in 0..<8 {
                    downloader.download(server.url("/gate/g/a.png?\(index)"), completion: collector.completion(index))
                }
                await server.expectEventually { $0.inFlight == 6 }
                #expect(downloader.queuedCount == 2)
                server.openGate("g")
                await collector.wait(for: 8)
                #expect(server.log.maxInFlight == 6)
            }
        }
    }

    @Test func raisingTheLimitWhileRunningStartsQueuedDownloads() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            let configuration = LoadingTest.configuration { $0.maxConcurrentDownloads = 1 }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                for index in 0..<4 {
                    downloader.download(server.url("/gate/g/a.png?\(index)"), completion: collector.completion(index))
                }
                await server.expectEventually { $0.inFlight == 1 }
                #expect(downloader.queuedCount == 3)
                downloader.maxConcurrentDownloads = 4
                await server.expectEventually { $0.inFlight == 4 }
                #expect(downloader.queuedCount == 0)
                downloader.maxConcurrentDownloads = 0
                #expect(downloader.maxConcurrentDownloads == 1)
                server.openGate("g")
                await collector.wait(for: 4)
            }
        }
    }

    @Test func cancellingAQueuedDownloadSendsNothing() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            let configuration = LoadingTest.configuration { $0.maxConcurrentDownloads = 1 }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                downloader.download(server.url("/gate/g/a.png"), completion: collector.completion(0))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                let queued = downloader.download(server.url("/files/a.png"), completion: collector.completion(1))
                downloader.download(server.url("/files/a.png?after"), completion: collector.completion(2))
                queued.cancel()
                #expect(collector.result(1)?.errorCode == .cancelled)
                server.openGate("g")
                await collector.wait(for: 3)
                #expect(server.log.paths == ["/gate/g/a.png", "/files/a.png"])
                #expect(server.log.requests.last?.uri == "/files/a.png?after")
            }
        }
    }
}
