import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// A hot URL's route is read once and found again; what makes two requests' routes differ keeps them apart.
@Suite struct RecentRoutesTests {
    /// A route as reading `request` would give it, counting the readings.
    private final class Reader: Sendable {
        private let count = Locked(0)
        let expires: Int?

        init(expires: Int? = nil) {
            self.expires = expires
        }

        var readings: Int { count.withLock { $0 } }

        func read(_ request: ProxyRequest) throws(ProxyError) -> RenderRequest {
            count.withLock { $0 += 1 }
            if request.path.hasPrefix("/bad") { throw ProxyError.invalidURL("unreadable") }
            var options = ProcessingOptions()
            options.expires = expires
            return RenderRequest(source: URL(string: "http://origin.test" + request.path)!, options: options,
                                 format: nil, vary: nil, key: request.path + "\n" + (request.accept ?? "-"))
        }
    }

    private static func request(_ path: String, accept: String? = nil, dpr: Double? = nil) -> ProxyRequest {
        var hints = ClientHints()
        hints.devicePixelRatio = dpr
        return ProxyRequest(method: "GET", path: path, accept: accept, clientHints: hints)
    }

    @Test func aPathIsReadOnceAndOtherPathsOnTheirOwn() throws {
        let routes = RecentRoutes(configuration: ProxyConfiguration()), reader = Reader()
        for _ in 0..<1000 { _ = try routes.route(for: Self.request("/a"), read: reader.read) }
        #expect(reader.readings == 1)
        let b = try routes.route(for: Self.request("/b"), read: reader.read)
        #expect(b.key == "/b\n-" && reader.readings == 2)
        // Headers the server does not read do not split the route.
        _ = try routes.route(for: Self.request("/a", accept: "image/webp", dpr: 2), read: reader.read)
        #expect(reader.readings == 2)
    }

    @Test func acceptAndClientHintsCountWhenTheServerReadsThem() throws {
        var configuration = ProxyConfiguration()
        configuration.negotiation = FormatNegotiation(offersAVIF: false, offersWebP: true)
        configuration.readsClientHints = true
        let routes = RecentRoutes(configuration: configuration), reader = Reader()
        let webp = try routes.route(for: Self.request("/a", accept: "image/webp"), read: reader.read)
        let plain = try routes.route(for: Self.request("/a"), read: reader.read)
        #expect(webp.key == "/a\nimage/webp" && plain.key == "/a\n-" && reader.readings == 2)
        _ = try routes.route(for: Self.request("/a", dpr: 2), read: reader.read)
        #expect(reader.readings == 3)
        _ = try routes.route(for: Self.request("/a", accept: "image/webp"), read: reader.read)
        _ = try routes.route(for: Self.request("/a", dpr: 2), read: reader.read)
        #expect(reader.readings == 3)
    }

    @Test func anExpiredRouteAndARefusalAreReadAgain() throws {
        let routes = RecentRoutes(configuration: ProxyConfiguration())
        let expired = Reader(expires: Int(Date().timeIntervalSince1970) - 10)
        _ = try routes.route(for: Self.request("/a"), read: expired.read)
        _ = try routes.route(for: Self.request("/a"), read: expired.read)
        #expect(expired.readings == 2)
        let lasting = Reader(expires: Int(Date().timeIntervalSince1970) + 3600)
        _ = try routes.route(for: Self.request("/b"), read: lasting.read)
        _ = try routes.route(for: Self.request("/b"), read: lasting.read)
        #expect(lasting.readings == 1)
        let refused = Reader()
        for _ in 0..<3 {
            #expect(throws: ProxyError.self) { try routes.route(for: Self.request("/bad"), read: refused.read) }
        }
        #expect(refused.readings == 3)
    }

    @Test func theCountIsBounded() throws {
        let routes = RecentRoutes(configuration: ProxyConfiguration(), count: 8), reader = Reader()
        for index in 0..<100 { _ = try routes.route(for: Self.request("/\(index)"), read: reader.read) }
        _ = try routes.route(for: Self.request("/0"), read: reader.read)
        #expect(reader.readings == 101)
        _ = try routes.route(for: Self.request("/99"), read: reader.read)
        #expect(reader.readings == 101)
    }

    /// Thousands of lookups at once from every thread, over more routes than fit and with refusals among them:
    /// each request gets its own route (never another's), every refusal is read again, and the bound holds.
    @Test func thousandsOfConcurrentLookupsEachGetTheirOwnRoute() async throws {
        var configuration = ProxyConfiguration()
        configuration.negotiation = FormatNegotiation(offersAVIF: false, offersWebP: true)
        let routes = RecentRoutes(configuration: configuration, count: 64)
        let reader = Reader(), refused = Reader()
        let total = 8_000
        let outcomes = await withTaskGroup(of: (good: Bool, refusal: Bool).self) { group in
            for index in 0..<total {
                group.addTask {
                    if index % 10 == 0 {
                        let request = Self.request("/bad/\(index % 30)")
                        return ((try? routes.route(for: request, read: refused.read)) == nil, true)
                    }
                    // Half the lookups are for 8 hot paths, the rest for 199 that cannot all stay.
                    let path = index % 2 == 0 ? "/hot/\(index % 8)" : "/\(index % 199)"
                    let accept = index % 3 == 0 ? "image/webp" : nil
                    let route = try? routes.route(for: Self.request(path, accept: accept), read: reader.read)
                    return (route?.key == path + "\n" + (accept ?? "-"), false)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == total && outcomes.allSatisfy(\.good))
        #expect(refused.readings == outcomes.filter(\.refusal).count)  // never kept, so read every time
        // 398 cold routes (199 paths, two formats) through 64 places are read at least once and many again after
        // being evicted; the hot ones stay, so most of their lookups are not read.
        #expect((398..<(total - refused.readings) * 3 / 4).contains(reader.readings))
        #expect(routes.count <= 64)
    }

    @Test func aHotURLAnswersEachClientInItsOwnFormat() async throws {
        try await ProxyHarness.with(configuring: {
            $0.negotiation = FormatNegotiation(offersAVIF: false, offersWebP: true)
        }) { harness in
            let path = harness.plainPath(["w:100"], "photo.jpg")
            for round in 0..<3 {
                let webp = await harness.get(path, accept: "image/webp,*/*")
                let jpeg = await harness.get(path, accept: "image/jpeg")
                #expect(webp.status == 200 && webp.header("Content-Type") == "image/webp")
                #expect(jpeg.status == 200 && jpeg.header("Content-Type") == "image/jpeg")
                // Answered at once from the second round on, once the repeat has written the result to disk.
                let hot = harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path))
                #expect(round == 0 ? hot == nil : hot?.header("Content-Type") == "image/jpeg")
            }
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }
}

extension RecentRoutes {
    /// The route the proxy would use for `request`: the kept one, else what `read` gives, kept (as `ProxyRoute`
    /// does with the two calls).
    fileprivate func route(for request: ProxyRequest, read: (ProxyRequest) throws(ProxyError) -> RenderRequest)
        throws(ProxyError) -> RenderRequest
    {
        if let recent = recent(for: request) { return recent }
        let route = try read(request)
        keep(route, for: request)
        return route
    }
}
