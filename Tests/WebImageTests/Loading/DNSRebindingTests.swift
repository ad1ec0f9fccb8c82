import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// Names whose DNS answer changes between lookups (a rebinding resolver on loopback, TTL 0) against real loopback
/// servers. 127.0.0.1 plays the internal network a server must not reach, refused by a hop check; 127.0.0.2 plays
/// a harmless public address, with its own server on the same port. A load must connect exactly to the address
/// its check saw, whatever the case of the host in the URL, on the first hop and after a redirect: the intranet
/// origin never sees a request. Nothing leaves loopback.
@Suite("DNS rebinding", .timeLimit(.minutes(2)))
struct DNSRebindingTests {
    let internalImage = LoadingTest.bytes(2_000, seed: 21)
    let publicImage = LoadingTest.bytes(2_000, seed: 22)

    /// A server on 127.0.0.1 (the internal origin) and one on 127.0.0.2 with the same port (the public one).
    private func withOrigins(_ body: (_ intranet: TestImageServer, _ outside: TestImageServer) async throws -> Void)
        async throws {
        var attempts = 0
        while true {
            let intranet = try await TestImageServer.start(host: "127.0.0.1")
            let outside: TestImageServer
            do {
                outside = try await TestImageServer.start(host: "127.0.0.2", port: intranet.port)
            } catch {
                // The port happened to be taken on 127.0.0.2: take another pair.
                await intranet.shutdown()
                attempts += 1
                if attempts < 5 { continue }
                throw error
            }
            intranet.serve("a.png", data: internalImage, contentType: "image/png")
            outside.serve("a.png", data: publicImage, contentType: "image/png")
            do {
                try await body(intranet, outside)
            } catch {
                await intranet.shutdown()
                await outside.shutdown()
                throw error
            }
            await intranet.shutdown()
            await outside.shutdown()
            return
        }
    }

    /// Refuses 127.0.0.1, the stand-in for the internal network.
    private let refuseInternal: HTTPHopCheck = { hop in
        hop.address.description == "127.0.0.1" ? .refuse("internal address") : .allow
    }

    private func configuration(_ dns: RebindingDNSServer, policy: AddressPolicy = .unrestricted,
                               check: HTTPHopCheck?) throws -> HTTPImageLoader.Configuration {
        var configuration = HTTPImageLoader.Configuration(readTimeout: .seconds(60), connectTimeout: .seconds(5))
        configuration.addressPolicy = policy
        configuration.hopCheck = check
        configuration.nameServer = NameServer(address: try #require(IPAddress(dns.host)), port: dns.port)
        return configuration
    }

    @Test(arguments: ["C2.rebind.example", "c2.REBIND.example", "c2.rebind.example"])
    func theFirstHopConnectsToTheCheckedAddressWhateverTheCase(host: String) async throws {
        try await withOrigins { intranet, outside in
            let dns = try await RebindingDNSServer.start(name: "c2.rebind.example", answers: ["127.0.0.2", "127.0.0.1"])
            try await LoadingTest.withHTTPLoader(try configuration(dns, check: refuseInternal)) { loader in
                let url = try #require(URL(string: "http://\(host):\(outside.port)/files/a.png"))
                let response = try await loader.load(LoadingTest.request(url), progress: nil)
                #expect(response.data == publicImage)
            }
            #expect(intranet.log.requests.isEmpty)
            #expect(outside.log.count("/files/a.png") == 1)
            #expect(dns.addressQueries == 1)
            await dns.shutdown()
        }
    }

    @Test func aRedirectHopConnectsToTheCheckedAddress() async throws {
        try await withOrigins { intranet, outside in
            let first = try await TestImageServer.start(host: "127.0.0.3")
            let dns = try await RebindingDNSServer.start(name: "c2.rebind.example", answers: ["127.0.0.2", "127.0.0.1"])
            try await LoadingTest.withHTTPLoader(try configuration(dns, check: refuseInternal)) { loader in
                let target = "http://C2.Rebind.Example:\(outside.port)/files/a.png"
                let response = try await loader.load(
                    LoadingTest.request(first.url("/redirect-to?url=\(target)")), progress: nil)
                #expect(response.data == publicImage)
            }
            #expect(first.log.requests.count == 1)
            #expect(intranet.log.requests.isEmpty)
            #expect(outside.log.count("/files/a.png") == 1)
            await first.shutdown()
            await dns.shutdown()
        }
    }

    @Test func aRetryThatResolvesToTheInternalAddressIsRefused() async throws {
        // Nothing listens on 127.0.0.2 this time: the first attempt cannot connect, and the retry's fresh lookup
        // gets the internal address, which is refused with a typed error rather than connected to.
        let intranet = try await TestImageServer.start(host: "127.0.0.1")
        intranet.serve("a.png", data: internalImage, contentType: "image/png")
        let dns = try await RebindingDNSServer.start(name: "c2.rebind.example", answers: ["127.0.0.2", "127.0.0.1"])
        var configuration = LoadingTest.configuration {
            $0.retryPolicy = RetryPolicy(maximumRetries: 2, initialDelay: .zero, jitter: 0)
            $0.connectTimeout = .seconds(2)
            $0.hopCheck = refuseInternal
        }
        configuration.nameServer = NameServer(address: try #require(IPAddress(dns.host)), port: dns.port)
        try await LoadingTest.withDownloader(configuration) { downloader in
            let url = try #require(URL(string: "http://C2.rebind.example:\(intranet.port)/files/a.png"))
            let error = await LoadingTest.failure { try await downloader.download(url) }
            #expect(error?.code == .destinationRefused)
        }
        #expect(intranet.log.requests.isEmpty)
        #expect(dns.addressQueries == 2)
        await intranet.shutdown()
        await dns.shutdown()
    }

    @Test(arguments: ["C2.rebind.example", "c2.rebind.example"])
    func publicOnlyRefusesANameThatResolvesToLoopbackWithoutSayingWhereItPoints(host: String) async throws {
        let intranet = try await TestImageServer.start(host: "127.0.0.1")
        intranet.serve("a.png", data: internalImage, contentType: "image/png")
        let dns = try await RebindingDNSServer.start(name: "c2.rebind.example", answers: ["127.0.0.1"])
        try await LoadingTest.withHTTPLoader(try configuration(dns, policy: .publicOnly, check: nil)) { loader in
            let url = try #require(URL(string: "http://\(host):\(intranet.port)/files/a.png"))
            let error = await LoadingTest.failure { try await loader.load(LoadingTest.request(url), progress: nil) }
            #expect(error?.code == .destinationRefused)
            #expect(error?.message.contains(host.lowercased()) == true)
            #expect(error?.message.contains("127.0.0.1") == false)
            #expect(error?.message.contains("loopback") == true)
        }
        #expect(intranet.log.requests.isEmpty)
        await intranet.shutdown()
        await dns.shutdown()
    }

    @Test func anIPv4LiteralWithAZoneIsAnInvalidHostNotThatAddress() async throws {
        #expect(IPAddress("8.8.8.8%x.some.name") == nil)
        #expect(IPAddress("8.8.8.8%eth0") == nil)
        #expect(IPAddress("fe80::1%eth0")?.description == "fe80::1")
        #expect(IPAddress("fe80::1%") == nil)
        let dns = try await RebindingDNSServer.start(name: "c2.rebind.example", answers: ["127.0.0.2"])
        try await LoadingTest.withHTTPLoader(try configuration(dns, policy: .publicOnly, check: nil)) { loader in
            let url = try #require(URL(string: "http://8.8.8.8%25x.some.name/a.png"))
            let error = await LoadingTest.failure { try await loader.load(LoadingTest.request(url), progress: nil) }
            #expect(error?.code == .invalidURL, "\(String(describing: error))")
        }
        // Not looked up either: a name that is not a DNS name is refused before any query.
        #expect(dns.addressQueries == 0)
        await dns.shutdown()
    }

    @Test func theNameServerSettingParses() throws {
        #expect(NameServer("127.0.0.1:5353")?.description == "127.0.0.1:5353")
        #expect(NameServer("[::1]:53")?.description == "[::1]:53")
        #expect(NameServer("10.0.0.2")?.port == 53)
        #expect(NameServer("dns.example:53") == nil)
        #expect(NameServer("127.0.0.1:0") == nil)
        #expect(NameServer("127.0.0.1:x") == nil)
    }
}
