import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The bound on transfers to one origin: an origin that never answers holds only its share of the slots, and a
/// queued transfer whose origin is at its bound does not hold up the line behind it. Order is observed on the
/// servers, never timed.
@Suite("ImageDownloader per-host bound", .timeLimit(.minutes(2)))
struct ImageDownloaderPerHostTests {
    let imageA = LoadingTest.bytes(3_000, seed: 11)
    let imageB = LoadingTest.bytes(2_000, seed: 12)

    @Test func theLibraryBoundsNoOriginByDefault() async throws {
        #expect(ImageDownloaderConfiguration().maxConcurrentDownloadsPerHost == nil)
        try await LoadingTest.withDownloader { downloader in
            #expect(downloader.maxConcurrentDownloadsPerHost == nil)
        }
    }

    /// Eight downloads to an origin that holds every request until the test releases it, through four slots of
    /// which an origin may hold two: the origin sees two, and a download from another origin is answered while
    /// all eight wait. Without the bound the eight took all four slots and the ninth waited for ever behind them.
    @Test func anOriginThatNeverAnswersHoldsOnlyItsShare() async throws {
        try await LoadingTest.withServer { originA in
            try await LoadingTest.withServer { originB in
                originA.serve("a.png", data: imageA, contentType: "image/png")
                originB.serve("b.png", data: imageB, contentType: "image/png")
                let configuration = LoadingTest.configuration {
                    $0.maxConcurrentDownloads = 4
                    $0.maxConcurrentDownloadsPerHost = 2
                }
                try await LoadingTest.withDownloader(configuration) { downloader in
                    let held = ResultCollector()
                    for index in 0..<8 {
                        downloader.download(originA.url("/gate/held/a.png?\(index)"), completion: held.completion(index))
                    }
                    await originA.expectEventually { $0.count("/gate/held/a.png") == 2 }
                    #expect(downloader.runningCount == 2 && downloader.queuedCount == 6)

                    let fromB = try await downloader.download(originB.url("/files/b.png"))
                    #expect(fromB.data == imageB)
                    #expect(held.results.isEmpty)  // every one of A's still pending
                    #expect(originA.log.count("/gate/held/a.png") == 2 && originA.log.inFlight == 2)

                    originA.openGate("held")
                    await held.wait(for: 8)
                    #expect((0..<8).allSatisfy { held.result($0)?.bytes == imageA })
                    #expect(originA.log.count("/gate/held/a.png") == 8)
                    #expect(downloader.runningCount == 0 && downloader.queuedCount == 0)
                }
            }
        }
    }

    /// Priorities still order the line among the transfers that may start: with one slot an origin for each of
    /// two origins (the same server under two spellings), a freed slot goes to the best waiter whose origin has
    /// room, high before low, passing over a high-priority waiter whose origin is at its bound.
    @Test func aFreedSlotGoesToTheBestWaiterWhoseOriginHasRoom() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: imageA, contentType: "image/png")
            let configuration = LoadingTest.configuration {
                $0.maxConcurrentDownloads = 2
                $0.maxConcurrentDownloadsPerHost = 1
            }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                let (x, y) = (server.host, "localhost")
                downloader.download(server.url("/gate/x/a.png?x1", host: x), completion: collector.completion(0))
                downloader.download(server.url("/gate/y/a.png?y1", host: y), completion: collector.completion(1))
                await server.expectEventually { $0.inFlight == 2 }
                downloader.download(server.url("/files/a.png?x2", host: x), completion: collector.completion(2))
                downloader.download(server.url("/files/a.png?y2", host: y), options: .lowPriority,
                                    completion: collector.completion(3))
                downloader.download(server.url("/files/a.png?y3", host: y), options: .highPriority,
                                    completion: collector.completion(4))
                downloader.download(server.url("/files/a.png?x3", host: x), options: .highPriority,
                                    completion: collector.completion(5))
                #expect(downloader.queuedCount == 4)

                server.openGate("y")  // y's slot frees while x is held at its bound
                await collector.wait(for: 3)
                #expect(Set(collector.results.keys) == [1, 3, 4])
                server.openGate("x")
                await collector.wait(for: 6)
                #expect(collector.results.values.allSatisfy { $0.bytes == imageA })
                let after = server.log.requests.dropFirst(2).map(\.uri)
                #expect(after == ["/files/a.png?y3", "/files/a.png?y2", "/files/a.png?x3", "/files/a.png?x2"])
                #expect(downloader.runningCount == 0 && downloader.queuedCount == 0)
            }
        }
    }

    /// Setting the bound on a running downloader lets in at once what it no longer holds back.
    @Test func raisingTheBoundStartsQueuedTransfersOfThatOrigin() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: imageA, contentType: "image/png")
            let configuration = LoadingTest.configuration {
                $0.maxConcurrentDownloads = 4
                $0.maxConcurrentDownloadsPerHost = 1
            }
            try await LoadingTest.withDownloader(configuration) { downloader in
                let collector = ResultCollector()
                for index in 0..<4 {
                    downloader.download(server.url("/gate/g/a.png?\(index)"), completion: collector.completion(index))
                }
                await server.expectEventually { $0.inFlight == 1 }
                #expect(downloader.queuedCount == 3)
                downloader.maxConcurrentDownloadsPerHost = nil
                await server.expectEventually { $0.inFlight == 4 }
                #expect(downloader.queuedCount == 0)
                server.openGate("g")
                await collector.wait(for: 4)
                #expect(collector.results.values.allSatisfy { $0.bytes == imageA })
                #expect(downloader.runningCount == 0)
            }
        }
    }
}
