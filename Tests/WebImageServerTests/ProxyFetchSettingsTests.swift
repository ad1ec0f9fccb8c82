import Foundation
import HTTPTypes
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// How sources are fetched and what answers take from them, through the proxy and a loopback origin: the
/// `User-Agent` sent, the redirect limit, the three source address switches (imgproxy's), the origin's lifetime
/// passed on from every tier (`--cache-control-passthrough`) and the canonical `Link` header.
@Suite struct ProxyFetchSettingsTests {
    @Test func theConfiguredUserAgentIsWhatTheOriginSees() async throws {
        try await ProxyHarness.with(configuring: { $0.userAgent = "imgproxy-compatible/9 (+https://x.example)" }) {
            #expect(await $0.get($0.plainPath(["w:20"], "photo.jpg")).status == 200)
            let sent = $0.origin.log.requests(for: "/files/photo.jpg").map { $0.header("User-Agent") }
            #expect(sent == ["imgproxy-compatible/9 (+https://x.example)"])
        }
        try await ProxyHarness.with {
            #expect(await $0.get($0.plainPath(["w:20"], "photo.jpg")).status == 200)
            let sent = $0.origin.log.requests(for: "/files/photo.jpg").map { $0.header("User-Agent") }
            #expect(sent == [ImageLoadRequest.defaultUserAgent])
        }
    }

    @Test(arguments: [0, 3])
    func aSourceMayRedirectAsOftenAsTheLimitAndNotOnceMore(limit: Int) async throws {
        try await ProxyHarness.with(configuring: { $0.maximumRedirects = limit }) { harness in
            if limit > 0 {
                let within = await harness.get(harness.plainPath(["w:20"], "photo.jpg", path: "/redirect/\(limit)/"))
                #expect(within.status == 200, "\(String(buffer: within.body))")
            } else {
                #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).status == 200)
            }
            let over = await harness.get(harness.plainPath(["w:21"], "photo.jpg", path: "/redirect/\(limit + 1)/"))
            #expect(over.status == 404, "\(String(buffer: over.body))")  // imgproxy's status for it
            #expect(String(buffer: over.body).contains("more than \(limit) redirects"))
            // The last redirect was read, its target never asked for.
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            #expect(harness.origin.log.count("/redirect/1/photo.jpg") == (limit > 0 ? 2 : 1))
        }
    }

    @Test func theLoopbackSwitchAloneOpensLoopbackAndTheOthersDoNot() async throws {
        try await ProxyHarness.with(configuring: {
            $0.allowsLoopbackSources = false
            $0.allowsPrivateSources = true
            $0.allowsLinkLocalSources = true
        }) { harness in
            let refused = await harness.get(harness.plainPath(["w:20"], "photo.jpg"))
            #expect(refused.status == 404 && String(buffer: refused.body).contains("not allowed"))
            #expect(harness.origin.log.requests.isEmpty)
        }
        try await ProxyHarness.with(configuring: { $0.allowsLoopbackSources = true }) { harness in
            #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).status == 200)
        }
    }

    /// Each class of address by its own switch; multicast never, public always. Wrapped IPv4 forms follow the
    /// class of the address they carry.
    @Test(arguments: [AddressRange.loopback, .private, .linkLocal])
    func eachAddressSwitchOpensItsClassAlone(opened: AddressRange) throws {
        var configuration = ProxyConfiguration()
        configuration.allowsLoopbackSources = opened == .loopback
        configuration.allowsPrivateSources = opened == .private
        configuration.allowsLinkLocalSources = opened == .linkLocal
        let policy = SourcePolicy.addressPolicy(for: configuration)
        let samples: [(String, AddressRange)] = [
            ("127.0.0.1", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback),
            ("0.0.0.0", .loopback), ("::", .loopback),
            ("10.1.2.3", .private), ("172.16.0.9", .private), ("192.168.1.1", .private), ("100.64.0.1", .private),
            ("fd00::1", .private), ("::ffff:0:a01:203", .private),
            ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("::ffff:0:a9fe:a9fe", .linkLocal),
            ("224.0.0.1", .multicast), ("ff02::1", .multicast),
            ("93.184.216.34", .global), ("2606:2800:220:1::1", .global),
        ]
        for (text, kind) in samples {
            let address = try #require(IPAddress(text))
            let allowed = kind == .global || kind == opened
            #expect((policy.refusal(of: address) == nil) == allowed, "\(text) with \(opened) open")
        }
        #expect(SourcePolicy.addressPolicy(for: ProxyConfiguration()) == .publicOnly)
    }

    @Test func theOriginsLifetimeIsPassedOnFromEveryTier() async throws {
        try await ProxyHarness.with(configuring: {
            $0.passesSourceCacheControl = true
            $0.timeToLive = 100
        }) { harness in
            let photo = try ProxyHarness.photo(width: 16, height: 16, as: .png)
            harness.origin.serve("kept.png", data: photo, contentType: "image/png", cacheControl: "max-age=100000")
            harness.origin.serve("secret.png", data: photo, contentType: "image/png",
                                 cacheControl: "private, max-age=600")
            harness.origin.serve("plain.png", data: photo, contentType: "image/png")
            func maxAge(_ answer: ProxyResponse) -> Int? {
                guard let header = answer.header("Cache-Control"), header.hasSuffix(", public") else { return nil }
                return Int(header.dropFirst("max-age=".count).prefix { $0.isNumber })
            }
            // The seconds left of the origin's lifetime (longer than the time to live), however long this takes.
            let left = 99_000...100_000
            // From the origin, then a second result from the source in memory (which writes it to disk), then the
            // first result again from the result cache.
            for options in [["w:8"], ["w:4"], ["w:8"], ["w:8"]] {
                let answer = await harness.get(harness.plainPath(options, "kept.png"))
                #expect(maxAge(answer).map(left.contains) == true, "\(answer.header("Cache-Control") ?? "-")")
            }
            // Another proxy over the same folder: the source and the twice-asked result from disk.
            let restarted = ImageProxy(configuration: harness.proxy.configuration)
            for options in [["w:2"], ["w:8"]] {
                let path = harness.plainPath(options, "kept.png")
                let answer = await restarted.respond(to: ProxyRequest(method: "GET", path: path, accept: nil,
                                                                      ifNoneMatch: nil))
                #expect(answer.status == 200 && maxAge(answer).map(left.contains) == true,
                        "\(answer.header("Cache-Control") ?? "-")")
            }
            #expect(harness.origin.log.count("/files/kept.png") == 1)
            // What shared caches must not keep as is, and a source with no lifetime of its own.
            #expect(await harness.get(harness.plainPath(["w:8"], "secret.png")).header("Cache-Control") == "no-cache")
            #expect(await harness.get(harness.plainPath(["w:8"], "plain.png")).header("Cache-Control")
                    == "max-age=100, public")
            // A URL that expires still bounds the lifetime by the time to live, as in imgproxy.
            let soon = Int(Date().timeIntervalSince1970) + 50_000
            let expiring = await harness.get(harness.plainPath(["w:3", "exp:\(soon)"], "kept.png"))
            #expect(expiring.header("Cache-Control") == "max-age=100, public")
        }
        try await ProxyHarness.with(configuring: { $0.timeToLive = 100 }) { harness in
            harness.origin.serve("kept.png", data: try ProxyHarness.photo(width: 16, height: 16, as: .png),
                                 contentType: "image/png", cacheControl: "max-age=100000")
            #expect(await harness.get(harness.plainPath(["w:8"], "kept.png")).header("Cache-Control")
                    == "max-age=100, public")
        }
    }

    @Test func theLifetimeIsReadFromCacheControlElseExpires() throws {
        let now = 1_700_000_000.0
        func expiry(_ headers: HTTPHeaderFields) -> Double? { SourceLifetime.expiry(headers: headers, now: now) }
        #expect(expiry(["Cache-Control": "public, max-age=600"]) == now + 600)
        #expect(expiry(["Cache-Control": "max-age=\"600\"", "Age": "100"]) == now + 500)
        #expect(expiry(["Cache-Control": "max-age=60", "Age": "100"]) == now)
        // No lifetime an answer could not say: at most 2³¹ seconds, and an Age that is no number is none.
        #expect(expiry(["Cache-Control": "max-age=99999999999999999999999"]) == now + 2_147_483_648)
        #expect(expiry(["Cache-Control": "max-age=60", "Age": "nan"]) == now + 60)
        #expect(expiry(["Expires": "Fri, 31 Dec 9999 23:59:59 GMT"]) == now + 2_147_483_648)
        let responder = ProxyResponder(timeToLive: 100, passesSourceCacheControl: true)
        #expect(responder.cacheControl(expires: nil, now: now, sourceExpires: .greatestFiniteMagnitude)
                == "max-age=2147483648, public")
        #expect(responder.cacheControl(expires: nil, now: now, sourceExpires: .nan) == "no-cache")
        #expect(expiry(["Cache-Control": "No-Store"]) == now)
        #expect(expiry(["Cache-Control": "no-cache, max-age=600"]) == now)
        // Cache-Control wins over Expires when it gives a lifetime; one that gives none leaves Expires.
        let expires = "Tue, 14 Nov 2023 22:30:00 GMT"  // now + 1000
        #expect(expiry(["Cache-Control": "max-age=5", "Expires": expires]) == now + 5)
        #expect(expiry(["Cache-Control": "public", "Expires": expires]) == now + 1000)
        #expect(expiry(["Expires": expires]) == now + 1000)
        // imgproxy ignores an Expires it cannot read (the time to live then applies), and so does this.
        #expect(expiry(["Expires": "0"]) == nil)
        #expect(expiry([:]) == nil)
    }

    @Test func theCanonicalLinkNamesAnHTTPSourceOnEveryAnswer() async throws {
        try await ProxyHarness.with(configuring: { $0.setsCanonicalHeader = true }) { harness in
            let source = harness.origin.url("/files/photo.jpg").absoluteString
            let first = await harness.get(harness.plainPath(["w:20"], "photo.jpg"))
            let again = await harness.get(harness.plainPath(["w:20"], "photo.jpg"))
            let notModified = await harness.get(harness.plainPath(["w:20"], "photo.jpg"),
                                                ifNoneMatch: first.header("ETag"))
            #expect(notModified.status == 304)
            for answer in [first, again, notModified] {
                #expect(answer.header("Link") == "<\(source)>; rel=\"canonical\"")
            }
        }
        try await ProxyHarness.with { harness in
            #expect(await harness.get(harness.plainPath(["w:20"], "photo.jpg")).header("Link") == nil)
        }
        #expect(ProxyResponder.canonicalLink(try #require(URL(string: "s3://bucket/a.png"))) == nil)
        #expect(ProxyResponder.canonicalLink(try #require(URL(string: "HTTPS://a.example/b.png")))
                == "<HTTPS://a.example/b.png>; rel=\"canonical\"")
    }
}
