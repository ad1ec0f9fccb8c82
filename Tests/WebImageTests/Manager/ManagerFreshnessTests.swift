import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// `refreshIfStale`: HTTP freshness decides whether a cached image costs a request, counted on the server; a 304
/// refreshes the stored validators and freshness; `no-store` never reaches the disk.
@Suite("Image manager: HTTP freshness", .timeLimit(.minutes(2)))
struct ManagerFreshnessTests {
    private func load(_ h: ManagerHarness, _ url: URL, _ options: ImageOptions = []) async throws -> ImageResult {
        try await h.manager.loadImage(from: url, options: options.union(.waitStoreCache))
    }

    @Test func aFreshEntryCostsNoRequest() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)), cacheControl: "max-age=600")
            let url = h.server.url("/files/a.png")
            _ = try await load(h, url)
            let again = try await h.freshManager().loadImage(from: url, options: [.refreshIfStale])
            #expect(again.cacheType == .disk)
            #expect(h.server.log.count("/files/a.png") == 1)
        }
    }

    @Test func aStaleEntryCostsOneConditionalRequestAndTheAnswerRefreshesIt() async throws {
        try await ManagerHarness.with { h in
            let png = try ManagerTest.png(RGBA(4, 5, 6))
            h.server.serve("a.png", data: png, cacheControl: "max-age=0")
            let url = h.server.url("/files/a.png")
            _ = try await load(h, url)
            // The server now says the same bytes stay fresh for ten minutes, and moves Last-Modified.
            h.server.serve("a.png", data: png, lastModified: "Mon, 02 Nov 2026 10:00:00 GMT", cacheControl: "max-age=600")
            let revalidated = try await load(h, url, [.refreshIfStale])
            #expect(revalidated.image.pixels[0, 0] == RGBA(4, 5, 6))
            let requests = h.server.log.requests.filter { $0.path == "/files/a.png" }
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") != nil)
            let stored = try #require(h.cache.disk.entry(forKey: url.absoluteString)?.metadata.validators)
            #expect(stored.lastModified == "Mon, 02 Nov 2026 10:00:00 GMT")
            #expect(stored.isFresh())
            // Fresh now: the next load asks nobody.
            _ = try await h.freshManager().loadImage(from: url, options: [.refreshIfStale])
            #expect(h.server.log.count("/files/a.png") == 2)
        }
    }

    @Test func noCacheRevalidatesEveryTime() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(7, 8, 9)), cacheControl: "no-cache, max-age=600")
            let url = h.server.url("/files/a.png")
            _ = try await load(h, url)
            for _ in 0..<2 { _ = try await load(h, url, [.refreshIfStale]) }
            #expect(h.server.log.count("/files/a.png") == 3)
            #expect(h.server.log.requests.dropFirst().allSatisfy { $0.header("If-None-Match") != nil })
        }
    }

    @Test func noStoreIsNeverWrittenToDisk() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(1, 1, 1)), cacheControl: "private, no-store")
            let url = h.server.url("/files/a.png")
            _ = try await load(h, url)
            #expect(h.cache.disk.entry(forKey: url.absoluteString) == nil)
            #expect(h.cache.image(forKey: url.absoluteString) != nil)
        }
    }

    @Test func withoutTheOptionFreshnessChangesNothing() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(2, 2, 2)), cacheControl: "max-age=0")
            let url = h.server.url("/files/a.png")
            _ = try await load(h, url)
            _ = try await h.freshManager().loadImage(from: url)
            #expect(h.server.log.count("/files/a.png") == 1)
        }
    }
}
