import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// Servers that never finish: headers or a body that go on forever, fast or trickling, or stop mid-head. Each is
/// cut off by a limit with a typed error, and the connection is closed.
@Suite("Hostile servers", .timeLimit(.minutes(2)))
struct HostileServerTests {
    private func load(_ loader: HTTPImageLoader, _ url: URL,
                      _ change: (inout ImageLoadRequest) -> Void = { _ in }) async throws -> ImageLoadResponse {
        var request = ImageLoadRequest(url: url)
        change(&request)
        return try await loader.load(request, progress: nil)
    }

    @Test func headersThatNeverEndAreCutOffAtTheHeaderLimit() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/endless-headers")) }
                #expect(error?.code == .responseTooLarge)
                #expect(error?.message.contains("headers") == true, "\(String(describing: error))")
                await server.expectEventually { $0.clientClosedPaths.contains("/endless-headers") }
            }
        }
    }

    @Test func tricklingHeadersHitTheTotalTimeout() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/endless-headers?delayMs=20&lineBytes=40")) {
                        $0.timeout = .seconds(2)
                    }
                }
                #expect(error?.code == .timedOut)
                #expect(error?.message.contains("took longer than") == true, "\(String(describing: error))")
                await server.expectAbandoned("/endless-headers")
            }
        }
    }

    @Test func headersThatStallHitTheReadTimeout() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader(.init(readTimeout: .milliseconds(300))) { loader in
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/endless-headers?delayMs=600000"))
                }
                #expect(error?.code == .timedOut)
                #expect(error?.message.contains("read timeout") == true, "\(String(describing: error))")
                await server.expectEventually { $0.clientClosedPaths.contains("/endless-headers") }
            }
        }
    }

    @Test func aBodyThatNeverEndsIsCutOffAtTheBodyLimit() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let received = Recorder<Int64>()
                let error = await LoadingTest.failure {
                    var request = ImageLoadRequest(url: server.url("/endless-body"))
                    request.maximumBodySize = 1 << 20
                    // The limit is what must end it: 15 s (the default) ran out first under TSan in CI.
                    request.timeout = .seconds(120)
                    return try await loader.load(request) { received.append($0.receivedBytes) }
                }
                #expect(error?.code == .responseTooLarge)
                #expect((received.all.max() ?? 0) <= 1 << 20)
                await server.expectEventually { $0.clientClosedPaths.contains("/endless-body") }
            }
        }
    }

    @Test func aTricklingBodyThatNeverEndsHitsTheTotalTimeout() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let received = Recorder<Int64>()
                let error = await LoadingTest.failure {
                    var request = ImageLoadRequest(url: server.url("/endless-body?delayMs=20&chunk=100"))
                    request.timeout = .seconds(2)
                    return try await loader.load(request) { received.append($0.receivedBytes) }
                }
                #expect(error?.code == .timedOut)
                #expect(error?.message.contains("took longer than") == true, "\(String(describing: error))")
                #expect((received.all.max() ?? 0) < 1 << 20, "far from the body limit: only the total timeout ended it")
                await server.expectAbandoned("/endless-body")
            }
        }
    }

    @Test("the defaults SECURITY.md lists bound every transfer")
    func theDefaultsBoundEveryTransfer() {
        let request = ImageLoadRequest(url: URL(fileURLWithPath: "/"))
        #expect(request.timeout == .seconds(15))
        #expect(request.maximumBodySize == 100 * 1024 * 1024)
        #expect(request.maximumRedirects == 10)
        #expect(!request.allowsInvalidCertificates)
        #expect(!request.handlesCookies)
        #expect(request.credentials == nil)
        let loader = HTTPImageLoader.Configuration()
        #expect(loader.readTimeout == .seconds(15) && loader.connectTimeout == .seconds(10))
        #expect(loader.maximumDecompressedSize == 100 * 1024 * 1024)
        let downloader = ImageDownloaderConfiguration()
        #expect(downloader.timeout == .seconds(15) && downloader.readTimeout == .seconds(15))
        #expect(downloader.maximumBodySize == 100 * 1024 * 1024 && downloader.maximumRedirects == 10)
        #expect(downloader.credentials == nil)
    }
}
