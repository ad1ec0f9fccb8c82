import Foundation
import TestImageServer
import Testing
@testable import WebImage

@Suite("Image prefetcher")
struct ImagePrefetcherTests {
    @Test("loads every URL, counts failures and skips, reports progress")
    func report() async throws {
        try await ManagerHarness.with { h in
            for index in 0..<8 { h.server.serve("\(index).png", data: try ManagerTest.png(RGBA(UInt8(index), 0, 0))) }
            var urls: [URL?] = (0..<8).map { h.server.url("/files/\($0).png") }
            urls.append(h.server.url("/status/404"))
            urls.append(nil)
            let progress = Locked<[Int]>([])
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let report = await prefetcher.prefetch(urls) { done, total in
                #expect(total == 10)
                progress.withLock { $0.append(done) }
            }
            #expect(report == PrefetchReport(total: 10, finished: 8, skipped: 1, failed: 1))
            #expect(progress.withLock { $0.sorted() } == Array(1...9))
            for index in 0..<8 {
                #expect(h.manager.cachedImage(for: h.server.url("/files/\(index).png"))?.pixels[0, 0]
                        == RGBA(UInt8(index), 0, 0))
            }
        }
    }

    @Test("at most three loads at a time, at low priority")
    func bounded() async throws {
        try await ManagerHarness.with { h in
            for index in 0..<6 { h.server.serve("\(index).png", data: try ManagerTest.png(RGBA(1, 1, 1))) }
            h.server.serve("n.png", data: try ManagerTest.png(RGBA(2, 2, 2)))
            let urls: [URL?] = (0..<6).map { h.server.url("/gate/p\($0)/\($0).png") }
            // One transfer slot: prefetches wait in line, so a normal-priority load started later must pass them.
            h.downloader.maxConcurrentDownloads = 1
            let manager = h.freshManager()
            let prefetcher = ImagePrefetcher(manager: manager)
            async let report = prefetcher.prefetch(urls)
            await h.server.expectEventually { $0.requests.count == 1 }
            await expectEventually { manager.stage.slots.waiting == 2 }  // three in flight, as the prefetcher allows
            let normal = manager.imageTask(from: h.server.url("/files/n.png"))
            await expectEventually { manager.stage.slots.waiting == 3 }
            // Whichever prefetch reached the slot first holds it (the three start together); release that one.
            let first = try #require(h.server.log.paths.first)
            let gate = first.split(separator: "/")[1]
            h.server.openGate(String(gate))
            _ = try await normal.result
            #expect(h.server.log.paths.prefix(2) == [first, "/files/n.png"])
            for index in 0..<6 { h.server.openGate("p\(index)") }
            #expect(await report.finished == 6)
            #expect(h.server.log.paths.filter { $0.hasPrefix("/gate/") }.count == 6)
        }
    }

    @Test("two groups run side by side; cancelling one leaves the other")
    func groups() async throws {
        try await ManagerHarness.with { h in
            for index in 0..<4 { h.server.serve("\(index).png", data: try ManagerTest.png(RGBA(2, 2, 2))) }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let stuck = Task { await prefetcher.prefetch([h.server.url("/gate/never/0.png"), h.server.url("/gate/never/1.png")]) }
            let other = await prefetcher.prefetch([h.server.url("/files/2.png"), h.server.url("/files/3.png")])
            #expect(other == PrefetchReport(total: 2, finished: 2))
            await h.server.expectEventually { $0.count("/gate/never/0.png") == 1 }
            stuck.cancel()
            let cancelled = await stuck.value
            #expect(cancelled.finished == 0)
            #expect(cancelled.skipped == 2)
            h.server.openGate("never")
        }
    }
}
