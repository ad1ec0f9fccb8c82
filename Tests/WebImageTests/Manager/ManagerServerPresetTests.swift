import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// `ImageManager.forServer`: what a server that loads its clients' URLs needs, refused before any request.
@Suite struct ManagerServerPresetTests {
    @Test func aServerManagerLoadsOnlyPublicHTTPURLs() async throws {
        let namespace = "server-preset-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(at: DiskCache.defaultFolder(namespace: namespace)) }
        let manager = ImageManager.forServer(cacheNamespace: namespace)
        let server = try await TestImageServer.start()
        server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)), contentType: "image/png")
        let loopback = await LoadingTest.failure { try await manager.loadImage(from: server.url("/files/a.png")) }
        #expect(loopback?.code == .destinationRefused)
        #expect(server.log.requests.isEmpty)
        await server.shutdown()
        for local in ["file:///etc/hostname", "data:image/png;base64,iVBORw0KGgo="] {
            let refused = await LoadingTest.failure { try await manager.loadImage(from: URL(string: local)!) }
            #expect(refused?.code == .invalidURL, "\(local)")
        }
    }

    @Test func aServerDownloaderDoesNotRetryARefusedConnectionOrATimeout() {
        let policy = ImageDownloaderConfiguration.server.retryPolicy
        #expect(!policy.isTransient(ImageError(.connectionRefused, "x"), statusCode: nil))
        #expect(!policy.isTransient(ImageError(.timedOut, "x"), statusCode: nil))
        #expect(policy.isTransient(ImageError(.connectionFailed, "x"), statusCode: nil))
        #expect(policy.isTransient(ImageError(.invalidDownloadStatusCode, "x", statusCode: 503), statusCode: 503))
        #expect(RetryPolicy().isTransient(ImageError(.connectionRefused, "x"), statusCode: nil))
        let configuration = ImageManager.Configuration.server
        #expect(configuration.decodeLimits.maxPixels == 50_000_000)
        #expect(configuration.failedURLExpiry == .seconds(600))
    }
}
