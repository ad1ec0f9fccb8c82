import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The HTTP loader's per-hop destination checks against real loopback servers: what is refused is never sent,
/// every hop is shown to the check with the address it will connect to, and a host name is connected to the
/// address that was checked, over plain HTTP and TLS alike.
@Suite("Destination checks", .timeLimit(.minutes(2)))
struct DestinationCheckTests {
    let image = LoadingTest.bytes(3_000, seed: 9)

    private func configuration(_ policy: AddressPolicy, check: HTTPHopCheck? = nil) -> HTTPImageLoader.Configuration {
        var configuration = HTTPImageLoader.Configuration(connectTimeout: .seconds(60))
        configuration.addressPolicy = policy
        configuration.hopCheck = check
        return configuration
    }

    @Test(arguments: ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "2130706433"])
    func publicOnlyRefusesLoopbackInEverySpellingWithoutSendingAnything(host: String) async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader(configuration(.publicOnly)) { loader in
                let url = server.url("/files/a.png", host: host)
                let error = await LoadingTest.failure { try await loader.load(LoadingTest.request(url), progress: nil) }
                #expect(error?.code == .destinationRefused, "\(url): \(String(describing: error))")
                #expect(server.log.requests.isEmpty)
            }
        }
    }

    @Test func everyHopIsCheckedWithTheAddressItConnectsTo() async throws {
        let first = try await TestImageServer.start()
        let second = try await TestImageServer.start()
        second.serve("a.png", data: image, contentType: "image/png")
        let hops = Recorder<HTTPHop>()
        let allowLoopback = AddressPolicy(refusing: [.private, .linkLocal, .multicast, .unspecified])
        try await LoadingTest.withHTTPLoader(configuration(allowLoopback) { hops.append($0); return .allow }) { loader in
            let target = second.url("/files/a.png", host: "localhost")
            let response = try await loader.load(
                LoadingTest.request(first.url("/redirect-to?url=\(target.absoluteString)")), progress: nil)
            #expect(response.data == image)
        }
        #expect(hops.all.map(\.index) == [0, 1])
        #expect(hops.all.map(\.address.description) == ["127.0.0.1", "127.0.0.1"])
        #expect(hops.all.last?.url.host == "localhost")
        // The pinned connection still names the host it asked for.
        #expect(second.log.requests.first?.header("Host") == "localhost:\(second.port)")
        await first.shutdown()
        await second.shutdown()
    }

    @Test func aRefusedRedirectIsNotFollowed() async throws {
        let first = try await TestImageServer.start()
        let second = try await TestImageServer.start()
        second.serve("a.png", data: image, contentType: "image/png")
        let check: HTTPHopCheck = { hop in hop.index == 0 ? .allow : .refuse("redirects are not followed here") }
        try await LoadingTest.withHTTPLoader(configuration(.unrestricted, check: check)) { loader in
            let target = second.url("/files/a.png")
            let error = await LoadingTest.failure {
                try await loader.load(LoadingTest.request(first.url("/redirect-to?url=\(target.absoluteString)")),
                                      progress: nil)
            }
            #expect(error?.code == .destinationRefused)
            #expect(error?.message.contains("redirects are not followed here") == true)
        }
        #expect(first.log.requests.count == 1)
        #expect(second.log.requests.isEmpty)
        await first.shutdown()
        await second.shutdown()
    }

    @Test func aPinnedHTTPSConnectionCompletesItsHandshake() async throws {
        let server = try await TestImageServer.start(tls: RedirectOriginTests.identity())
        server.serve("a.png", data: image, contentType: "image/png")
        let allowLoopback = AddressPolicy(refusing: [.private])
        try await LoadingTest.withHTTPLoader(configuration(allowLoopback) { _ in .allow }) { loader in
            // The test certificate is self-signed, so the chain is not verified here; what this shows is that a
            // connection pinned to 127.0.0.1 for `localhost` completes a TLS handshake and an HTTP exchange.
            var request = LoadingTest.request(server.url("/files/a.png", host: "localhost"))
            request.allowsInvalidCertificates = true
            let response = try await loader.load(request, progress: nil)
            #expect(response.data == image)
        }
        await server.shutdown()
    }

    @Test func theManagerBlocksARefusedURLAndReportsTheCode() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            var downloaderConfiguration = LoadingTest.configuration()
            downloaderConfiguration.addressPolicy = .publicOnly
            try await LoadingTest.withDownloader(downloaderConfiguration) { downloader in
                let folder = TestScratch.root.appendingPathComponent("destination-\(UUID())")
                defer { try? FileManager.default.removeItem(at: folder) }
                let manager = ImageManager(cache: ImageCache(folder: folder), loader: downloader)
                let url = server.url("/files/a.png")
                let first = await LoadingTest.failure { try await manager.loadImage(from: url) }
                #expect(first?.code == .destinationRefused)
                #expect(manager.failedURLs.contains(url))
                #expect(server.log.requests.isEmpty)
            }
        }
    }
}
