import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The loader's kept DNS answers: each for its time to live (none for TTL 0), failures briefly, a bounded count;
/// against a name server on loopback, a kept answer saves the lookup and is still checked and pinned on every use.
@Suite struct ResolvedHostsTests {
    private let a = IPAddress("198.51.100.7")!, b = IPAddress("198.51.100.8")!

    @Test func anAnswerIsKeptForItsLifetimeAndAZeroLifetimeKeepsNothing() {
        let kept = ResolvedHosts()
        let now = ContinuousClock.now
        kept.keep(.addresses([a]), for: "img.example", lifetime: .seconds(60), now: now)
        kept.keep(.addresses([b]), for: "rebind.example", lifetime: .zero, now: now)
        #expect(kept.outcome(for: "img.example", now: now + .seconds(59)) == .addresses([a]))
        #expect(kept.outcome(for: "img.example", now: now + .seconds(60)) == nil)
        #expect(kept.outcome(for: "rebind.example", now: now) == nil)
        // A TTL of days is kept an hour at most.
        kept.keep(.failure("no such name"), for: "gone.example", lifetime: .seconds(86_400), now: now)
        #expect(kept.outcome(for: "gone.example", now: now + .seconds(3_599)) == .failure("no such name"))
        #expect(kept.outcome(for: "gone.example", now: now + .seconds(3_600)) == nil)
    }

    @Test func aFullCacheDropsExpiredNamesThenTheSoonestToExpire() {
        let kept = ResolvedHosts(limit: 3)
        let now = ContinuousClock.now
        kept.keep(.addresses([a]), for: "one", lifetime: .seconds(10), now: now)
        kept.keep(.addresses([a]), for: "two", lifetime: .seconds(100), now: now)
        kept.keep(.addresses([a]), for: "three", lifetime: .seconds(50), now: now)
        kept.keep(.addresses([b]), for: "four", lifetime: .seconds(100), now: now)
        #expect(kept.count == 3)
        #expect(kept.outcome(for: "one", now: now) == nil)
        #expect(kept.outcome(for: "three", now: now) == .addresses([a]))
        // Later, "three" has expired: it goes first, and nothing else does.
        kept.keep(.addresses([b]), for: "five", lifetime: .seconds(100), now: now + .seconds(60))
        #expect(kept.count == 3)
        #expect(kept.outcome(for: "two", now: now + .seconds(60)) == .addresses([a]))
        #expect(kept.outcome(for: "four", now: now + .seconds(60)) == .addresses([b]))
        #expect(kept.outcome(for: "five", now: now + .seconds(60)) == .addresses([b]))
    }

    @Test func thousandsOfConcurrentLookupsAndKeepsStayWithinTheLimitAndReadWhatWasKept() async {
        let kept = ResolvedHosts(limit: 64)
        let addresses = (0..<200).map { IPAddress("198.51.100.\($0)")! }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4_000 {
                group.addTask {
                    let index = task % 200
                    let name = "host\(index).example"
                    kept.keep(.addresses([addresses[index]]), for: name, lifetime: .seconds(60))
                    guard let outcome = kept.outcome(for: name) else { return 0 }  // pushed out meanwhile
                    return outcome == .addresses([addresses[index]]) ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(kept.count <= 64)
    }

    private func configuration(_ dns: RebindingDNSServer, check: HTTPHopCheck? = nil) throws
        -> HTTPImageLoader.Configuration {
        var configuration = HTTPImageLoader.Configuration(readTimeout: .seconds(60), connectTimeout: .seconds(5))
        configuration.hopCheck = check
        configuration.nameServer = NameServer(address: try #require(IPAddress(dns.host)), port: dns.port)
        return configuration
    }

    @Test func aNameWithATTLIsAskedOnceForManyLoadsWhateverItsCase() async throws {
        let origin = try await TestImageServer.start(host: "127.0.0.1")
        let image = LoadingTest.bytes(1_000, seed: 31)
        origin.serve("a.png", data: image, contentType: "image/png")
        let dns = try await RebindingDNSServer.start(name: "kept.example", answers: ["127.0.0.1"], ttl: 3_600)
        try await LoadingTest.withHTTPLoader(try configuration(dns, check: { _ in .allow })) { loader in
            for host in ["kept.example", "KEPT.example", "kept.example", "Kept.Example"] {
                let url = try #require(URL(string: "http://\(host):\(origin.port)/files/a.png"))
                #expect(try await loader.load(LoadingTest.request(url), progress: nil).data == image)
            }
        }
        #expect(dns.addressQueries == 1)
        #expect(origin.log.count("/files/a.png") == 4)
        await origin.shutdown()
        await dns.shutdown()
    }

    @Test func aKeptAnswerIsStillCheckedOnEveryUse() async throws {
        let origin = try await TestImageServer.start(host: "127.0.0.1")
        origin.serve("a.png", data: LoadingTest.bytes(1_000, seed: 32), contentType: "image/png")
        let dns = try await RebindingDNSServer.start(name: "kept.example", answers: ["127.0.0.1"], ttl: 3_600)
        let refusing = Locked(false)
        let check: HTTPHopCheck = { _ in refusing.withLock { $0 } ? .refuse("now refused") : .allow }
        try await LoadingTest.withHTTPLoader(try configuration(dns, check: check)) { loader in
            let url = try #require(URL(string: "http://kept.example:\(origin.port)/files/a.png"))
            _ = try await loader.load(LoadingTest.request(url), progress: nil)
            refusing.withLock { $0 = true }
            let error = await LoadingTest.failure { try await loader.load(LoadingTest.request(url), progress: nil) }
            #expect(error?.code == .destinationRefused)
        }
        #expect(dns.addressQueries == 1)
        #expect(origin.log.count("/files/a.png") == 1)
        await origin.shutdown()
        await dns.shutdown()
    }

    @Test func aNameThatDoesNotResolveIsAskedOnceForABurstOfLoads() async throws {
        let dns = try await RebindingDNSServer.start(name: "kept.example", answers: ["127.0.0.1"], ttl: 3_600)
        var settings = try configuration(dns, check: { _ in .allow })
        // Long enough that a slow, loaded run (a sanitizer's) still makes all three loads inside it.
        settings.failedLookupLifetime = .seconds(600)
        try await LoadingTest.withHTTPLoader(settings) { loader in
            for _ in 0..<3 {
                let url = try #require(URL(string: "http://gone.example:8080/files/a.png"))
                let error = await LoadingTest.failure { try await loader.load(LoadingTest.request(url), progress: nil) }
                #expect(error?.code == .connectionFailed)
                #expect(error?.message.contains("no such name") == true)
            }
        }
        // One A and one AAAA query, for the first load only.
        #expect(dns.queries == 2)
        await dns.shutdown()
    }
}
