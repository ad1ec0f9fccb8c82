import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The server's own bookkeeping and range handling, which the other loading tests rely on.
@Suite("TestImageServer", .timeLimit(.minutes(1)))
struct TestImageServerTests {
    let image = LoadingTest.bytes(1_000, seed: 6)

    private func get(_ loader: HTTPImageLoader, _ url: URL, headers: HTTPHeaderFields = [:]) async throws
        -> ImageLoadResponse {
        var request = ImageLoadRequest(url: url)
        request.headers.merge(headers)
        return try await loader.load(request, progress: nil)
    }

    @Test func rangesAreServedWhileIfRangeMatches() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png", etag: "\"e1\"")
            try await LoadingTest.withHTTPLoader { loader in
                let url = server.url("/files/a.png")
                let partial = try await get(loader, url, headers: ["Range": "bytes=100-", "If-Range": "\"e1\""])
                #expect(partial.metadata.statusCode == 206)
                #expect(partial.metadata.headers["Content-Range"] == "bytes 100-999/1000")
                #expect(partial.data == image.suffix(from: 100))
                let changed = try await get(loader, url, headers: ["Range": "bytes=100-", "If-Range": "\"old\""])
                #expect(changed.metadata.statusCode == 200)
                #expect(changed.data == image)
                let beyond = await LoadingTest.failure { try await get(loader, url, headers: ["Range": "bytes=5000-"]) }
                #expect(beyond?.code == .invalidDownloadStatusCode)
            }
        }
    }

    @Test func countsRequestsAndKeepsTheirHeaders() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                _ = try await get(loader, server.url("/files/a.png?x=1"), headers: ["X-Test": "one"])
                _ = try await get(loader, server.url("/files/a.png?x=2"), headers: ["X-Test": "two"])
                let log = server.log
                #expect(log.count("/files/a.png") == 2)
                #expect(log.requests.map(\.uri) == ["/files/a.png?x=1", "/files/a.png?x=2"])
                #expect(log.requests.map { $0.header("x-test") } == ["one", "two"])
                #expect(log.clientClosedPaths.isEmpty)
                #expect(log.connectionCount == 1 && log.openConnections == 1, "one kept-alive connection")
                // The server finishes its bookkeeping just after the client has the last byte.
                await server.expectEventually { $0.inFlight == 0 }
            }
        }
    }

    @Test func waitingEndsWithAnAnswerWhenTheConditionHoldsTimesOutOrTheServerStops() async throws {
        let server = try await TestImageServer.start()
        #expect(await server.waitUntil { $0.requests.isEmpty })
        #expect(await server.waitUntil(timeout: .milliseconds(20)) { $0.requests.count == 1 } == false)
        async let stopped = server.waitUntil(timeout: .seconds(600)) { $0.requests.count == 1 }
        await server.shutdown()
        #expect(await stopped == false)
    }

    @Test func flakyRouteFailsTheGivenNumberOfTimes() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let url = server.url("/flaky/a.png?failures=2")
                for _ in 0..<2 {
                    let error = await LoadingTest.failure { try await get(loader, url) }
                    #expect(error?.code == .invalidDownloadStatusCode)
                }
                let success = try await get(loader, url)
                #expect(success.data == image)
            }
        }
    }
}
