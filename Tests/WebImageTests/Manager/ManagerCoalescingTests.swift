import Foundation
import TestImageServer
import Testing
@testable import WebImage

@Suite("Image manager: shared work and cancellation")
struct ManagerCoalescingTests {
    @Test("50 equal loads make 1 request, 1 decode and 1 transform")
    func equalLoadsShareEverything() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(10, 20, 30)))
            let url = h.server.url("/gate/g/a.png")
            let paint = CountingTransformer()
            let context = ImageContext(transformer: .use(paint))
            let results = try await withThrowingTaskGroup(of: ImageResult.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await h.manager.loadImage(from: url, options: index % 2 == 0 ? [.highPriority] : [],
                                                      context: context)
                    }
                }
                await h.server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                h.server.openGate("g")
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 50)
            #expect(results.allSatisfy { $0.image.pixels[0, 0] == RGBA(0, 0, 255) })
            #expect(h.server.log.count("/gate/g/a.png") == 1)
            #expect(h.counter.decodeCount == 1)
            #expect(paint.runCount == 1)
        }
    }

    @Test("different thumbnail sizes of one URL share the download")
    func thumbnailsShareDownload() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 1, 1), width: 200, height: 200))
            let url = h.server.url("/gate/t/a.png")
            async let small = h.manager.loadImage(from: url, context: ImageContext(thumbnailPixelSize: PixelSize(width: 20, height: 20)))
            async let large = h.manager.loadImage(from: url, context: ImageContext(thumbnailPixelSize: PixelSize(width: 80, height: 80)))
            await h.server.expectEventually { $0.count("/gate/t/a.png") == 1 }
            // Both sizes wait on the one transfer before it can finish (on a loaded machine the second caller
            // may start late; it would then find no transfer to join).
            await expectEventually {
                h.downloader.runningCount == 1 && h.manager.stage.transfers.count == 1
                    && h.manager.stage.transfers.all.first?.subscriberCount == 2
            }
            h.server.openGate("t")
            let (s, l) = try await (small, large)
            #expect(s.image.size == PixelSize(width: 20, height: 20))
            #expect(l.image.size == PixelSize(width: 80, height: 80))
            #expect(h.server.log.count("/gate/t/a.png") == 1)
            #expect(h.counter.decodeCount == 2)
        }
    }

    @Test("cancelling one caller leaves the other; cancelling all stops the transfer and stores nothing")
    func cancellation() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(3, 3, 3)))
            let url = h.server.url("/gate/c/a.png")
            let first = h.manager.imageTask(from: url)
            let second = h.manager.imageTask(from: url)
            await h.server.expectEventually { $0.count("/gate/c/a.png") == 1 }
            first.cancel()
            #expect(await LoadingTest.failure { try await first.result }?.code == .cancelled)
            #expect(h.manager.isRunning)
            second.cancel()
            #expect(await LoadingTest.failure { try await second.result }?.code == .cancelled)
            await expectEventually { !h.manager.isRunning && h.downloader.runningCount == 0 }
            h.server.openGate("c")
            #expect(await h.cache.contains(forKey: url.absoluteString, in: .all) == .none)
            #expect(h.counter.decodeCount == 0)
            // A later load starts afresh.
            let again = try await h.manager.loadImage(from: url)
            #expect(again.cacheType == .none)
        }
    }

    @Test("Swift task cancellation cancels the load")
    func taskCancellation() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(3, 3, 3)))
            let url = h.server.url("/gate/k/a.png")
            let task = Task { try await h.manager.loadImage(from: url) }
            await h.server.expectEventually { $0.count("/gate/k/a.png") == 1 }
            task.cancel()
            #expect(await LoadingTest.failure { try await task.value }?.code == .cancelled)
            await expectEventually { !h.manager.isRunning }
        }
    }

    @Test("cancelAll ends every load with cancelled")
    func cancelAll() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(3, 3, 3)))
            h.server.serve("b.png", data: try ManagerTest.png(RGBA(4, 4, 4)))
            let a = h.manager.imageTask(from: h.server.url("/gate/x/a.png"))
            let b = h.manager.imageTask(from: h.server.url("/gate/x/b.png"))
            await h.server.expectEventually { $0.requests.count == 2 }
            h.manager.cancelAll()
            #expect(await LoadingTest.failure { try await a.result }?.code == .cancelled)
            #expect(await LoadingTest.failure { try await b.result }?.code == .cancelled)
            #expect(!h.manager.isRunning)
            h.server.openGate("x")
        }
    }
}
