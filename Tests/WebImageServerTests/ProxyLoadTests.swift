import Dispatch
import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// The render engine's bounds, in process: requests that leave stop waiting, a render nobody waits for is never
/// started, and every gauge returns to zero.
@Suite struct ProxyLoadTests {
    @Test func aQueuedRequestWhoseClientLeftIsNeverRendered() async throws {
        try await ProxyHarness.with(configuring: { $0.workers = 1 }) { harness in
            let cpu = harness.proxy.renders.cpu
            let release = DispatchSemaphore(value: 0)
            let holder = Task { try await cpu.run { release.wait() } }  // the only worker, busy
            #expect(await Self.eventually { cpu.slots.running == 1 })
            let request = Task { await harness.get(harness.plainPath(["w:50"], "photo.jpg")) }
            #expect(await Self.eventually { cpu.slots.waiting == 1 })  // downloaded, in line for the worker
            request.cancel()
            #expect(await request.value.status == 499)  // logged as the client's doing, not the server's
            #expect(await Self.eventually { harness.proxy.load.renders == 0 && cpu.slots.waiting == 0 })
            release.signal()
            try await holder.value
            #expect(harness.proxy.renders.renderingsDrawn == 0)
            #expect(harness.proxy.load == .idle)
            // The source was fetched once and is not fetched again: the next request renders from it.
            #expect(await harness.get(harness.plainPath(["w:50"], "photo.jpg")).status == 200)
            #expect(harness.proxy.renders.renderingsDrawn == 1)
        }
    }

    /// Many requests for a few results, with a third of their clients leaving at random points: every request
    /// that stayed gets its image, and nothing is left in flight.
    @Test func thousandsOfRequestsWithLeaversLeaveNothingInFlight() async throws {
        try await ProxyHarness.with(configuring: { $0.workers = 2 }) { harness in
            let total = 2_000
            let answered = await Self.statusesWithEveryThirdLeaving(total) { index in
                await harness.get(harness.plainPath(["w:\(20 + index % 40)"], "photo.jpg"))
            }
            let statuses = Dictionary(answered.map { ($0, 1) }, uniquingKeysWith: +)
            #expect(answered.count == total - (total + 2) / 3 && statuses == [200: answered.count],
                    "statuses: \(statuses)")
            #expect(await Self.eventually { harness.proxy.load == .idle })
        }
    }

    /// `--download-timeout` bounds the whole download: an origin that stops sending is asked once, not three
    /// times with a fresh timeout each (the retries would hold the transfer slot three times as long).
    ///
    /// Under a sanitizer beside other suites, the client's start-up can take the whole timeout, so the origin may
    /// not see even the first request: at most one is what a download that is not retried shows either way (a
    /// retry comes after the client is up and would reach the stalling origin).
    @Test func aDownloadThatTimesOutIsNotRetried() async throws {
        try await ProxyHarness.with(configuring: { $0.downloadTimeout = .seconds(2) }) { harness in
            let response = await harness.get(harness.plainPath(["w:50"], "photo.jpg", path: "/stall/"))
            #expect(response.status == 504)
            #expect(harness.origin.log.count("/stall/photo.jpg") <= 1)
            #expect(await Self.eventually { harness.proxy.load == .idle })
        }
    }

    /// `--download-timeout` is the only limit on a download, as imgproxy's: an origin that pauses longer than a
    /// client's usual read timeout (15 s) between two parts of the body, within the download timeout, is answered.
    @Test func aPauseWithinTheDownloadTimeoutIsWaitedFor() async throws {
        try await ProxyHarness.with(configuring: { $0.downloadTimeout = .seconds(60) }) { harness in
            let size = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg).count
            let name = "photo.jpg?chunk=\(size / 2 + 1)&delayMs=16000"  // two parts, 16 s apart
            let response = await harness.get(harness.plainPath(["w:50"], name, path: "/slow/"))
            #expect(response.status == 200, "\(String(buffer: response.body))")
            #expect(try ProxyHarness.decode(response).size.width == 50)
            #expect(harness.origin.log.count("/slow/photo.jpg") == 1)
        }
    }

    /// Waits until `condition` holds (`false` if it never does within a minute of polling).
    /// `total` requests at once, each made by `request` from its index, every third one cancelled by its client as
    /// soon as it starts: the statuses of the others.
    static func statusesWithEveryThirdLeaving(_ total: Int, _ request: @escaping @Sendable (Int) async -> ProxyResponse)
        async -> [Int]
    {
        await withTaskGroup(of: Int?.self) { group in
            for index in 0..<total {
                let answer = Task { await request(index) }
                if index % 3 == 0 { answer.cancel() }
                group.addTask { index % 3 == 0 ? nil : await answer.value.status }
            }
            var statuses: [Int] = []
            for await status in group { if let status { statuses.append(status) } }
            return statuses
        }
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<60_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }
}
