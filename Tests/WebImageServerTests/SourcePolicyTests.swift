import Foundation
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// `--allow-source`: prefixes compare normal forms, and the policy's hop check refuses every hop, redirects
/// included, that leads outside them.
@Suite struct SourcePolicyTests {
    @Test(arguments: [
        ("HTTP://OK.Example/a/b.png", "http://ok.example/a/b.png"),
        ("http://ok.example:80/a.png", "http://ok.example/a.png"),
        ("https://ok.example:443/a.png", "https://ok.example/a.png"),
        ("https://ok.example:8443/a.png", "https://ok.example:8443/a.png"),
        ("http://ok.example/a/../../evil", "http://ok.example/evil"),
        ("http://ok.example/a/./b/../c.png", "http://ok.example/a/c.png"),
        ("http://ok.example/a/%2e%2E/evil", "http://ok.example/evil"),
        ("http://ok.example/%7Euser/%41.png", "http://ok.example/~user/A.png"),
        ("http://ok.example/a%2fb?q=%3d", "http://ok.example/a%2Fb?q=%3D"),
        ("http://user:pw@ok.example/a.png#frag", "http://ok.example/a.png"),
        ("http://ok.example", "http://ok.example/"),
    ])
    func urlsHaveOneNormalForm(url: String, expected: String) throws {
        #expect(SourceURLNormalisation.normalised(try #require(URL(string: url))) == expected)
    }

    @Test func notHTTPHasNoNormalForm() throws {
        #expect(SourceURLNormalisation.normalised(try #require(URL(string: "file:///etc/passwd"))) == nil)
        #expect(SourceURLNormalisation.normalised(try #require(URL(string: "/relative"))) == nil)
    }

    @Test func prefixesCompareNormalForms() throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://ok.example/a/", "HTTPS://Images.Example"])
        #expect(throws: Never.self) { try policy.check("HTTP://OK.example/a/b.png") }
        #expect(throws: Never.self) { try policy.check("http://ok.example:80/a/%62.png") }
        #expect(throws: Never.self) { try policy.check("https://images.example/x.png") }
        #expect(throws: ProxyError.self) { try policy.check("http://ok.example/a/../../evil") }
        #expect(throws: ProxyError.self) { try policy.check("http://ok.example/a/%2e%2e/evil") }
        #expect(throws: ProxyError.self) { try policy.check("http://ok.example/b.png") }
        // A prefix without a path stops at the host: it does not allow a longer host name.
        #expect(throws: ProxyError.self) { try policy.check("https://images.example.evil.test/x.png") }
        #expect(throws: ProxyError.self) { try policy.check("https://images.example@evil.test/x.png") }
    }

    @Test(arguments: [
        "http://ok.example/a/..%2Fevil", "http://ok.example/a/..%2fevil", "http://ok.example/a/..%5Cevil",
        "http://ok.example/a/..%5cevil", "http://ok.example/a/%2e%2e%2fevil", "http://ok.example/a/%2E%2e%2F..%2Fevil",
        "http://ok.example/a/..\\evil", "http://ok.example/a/x%2F..%2F..%2Fevil", "http://ok.example/a/%5C..%5Cevil",
        "http://ok.example/a/..;x/evil", "http://ok.example/a/.%2Fb.png", "http://ok.example/a/b%2F..",
    ])
    func aDotSegmentHiddenInAnEncodedSeparatorIsRefused(url: String) throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://ok.example/a/"])
        #expect(policy.refusal(of: try #require(URL(string: url))) == .hiddenDotSegment, "\(url)")
        #expect(throws: ProxyError.self) { try policy.check(url) }
    }

    @Test func prefixesHoldInBothReadingsOfThePath() throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://ok.example/a/", "http://ok.example/bucket/x%2fy/"])
        func refusal(_ url: String) throws -> SourcePolicy.Refusal? {
            policy.refusal(of: try #require(URL(string: url)))
        }
        // `%2F` in a name that cannot climb, as object stores name keys.
        #expect(try refusal("http://ok.example/a/b%2Fc.png") == nil)
        #expect(try refusal("http://ok.example/a/b%5Cc.png") == nil)
        #expect(try refusal("http://ok.example/bucket/x%2Fy/z.png") == nil)
        // Each reading alone would let these in: `/a%2Fb.png` is `/a/b.png` to nginx, `/bucket/x/y/` is not the
        // prefix's `x%2Fy` to an origin that keeps `%2F` in the name.
        #expect(try refusal("http://ok.example/a%2Fb.png") == .outsidePrefixes)
        #expect(try refusal("http://ok.example/bucket/x/y/z.png") == .outsidePrefixes)
        // Resolved dot segments hide nothing, whatever else the path holds.
        #expect(try refusal("http://ok.example/a/../a/b%2Fc.png") == nil)
        // Decoded once: `%252F` is the text `%2F` in a name (nginx reads it so), not a separator.
        #expect(try refusal("http://ok.example/a/..%252Fevil") == nil)
        #expect(SourceURLNormalisation.normalForm(try #require(URL(string: "http://ok.example/a/..%252Fevil")))?
                    .serverReading == "http://ok.example/a/..%252Fevil")
        #expect(SourceURLNormalisation.normalForm(try #require(URL(string: "http://ok.example/a/b%2fc%5C.png?q=%2F")))?
                    .serverReading == "http://ok.example/a/b/c/.png?q=%2F")
        // Without prefixes nothing is refused: there is nothing to escape from.
        #expect(SourcePolicy(allowedPrefixes: []).refusal(of: try #require(URL(string: "http://o.example/..%2Fx"))) == nil)
    }

    @Test func theHopCheckRefusesEveryHopOutsideThePrefixes() throws {
        let policy = SourcePolicy(allowedPrefixes: ["http://ok.example/a/"])
        let check = try #require(policy.hopCheck)
        let address = try #require(IPAddress("198.51.100.7"))
        func decide(_ url: String, hop: Int) throws -> HTTPHopDecision {
            check(HTTPHop(url: try #require(URL(string: url)), address: address, index: hop))
        }
        #expect(try decide("http://ok.example/a/1.png", hop: 0) == .allow)
        #expect(try decide("HTTP://OK.EXAMPLE/a/2.png", hop: 1) == .allow)
        #expect(try decide("http://ok.example/a/../../evil", hop: 1)
            == .refuse("a redirect leads outside the allowed source prefixes"))
        #expect(try decide("http://ok.example/a/..%2F..%2Fevil", hop: 1)
            == .refuse("a redirect's path hides a dot segment in an encoded slash or backslash"))
        #expect(try decide("http://ok.example/a/..%5Cevil", hop: 0) != .allow)
        #expect(try decide("http://evil.example/a/1.png", hop: 2) != .allow)
        #expect(try decide("http://evil.example/a/1.png", hop: 0) != .allow)
    }

    @Test func withoutPrefixesThereIsNoHopCheck() {
        #expect(SourcePolicy(allowedPrefixes: []).hopCheck == nil)
    }

    @Test func aRedirectOutsideThePrefixesIsNotFetched() async throws {
        let allowed = try await TestImageServer.start()
        let outside = try await TestImageServer.start(host: "127.0.0.2")
        outside.serve("a.png", data: Data("not for you".utf8), contentType: "image/png")
        let policy = SourcePolicy(allowedPrefixes: [allowed.url("/redirect-to").absoluteString])
        var configuration = ImageDownloaderConfiguration()
        configuration.retryPolicy = .none
        configuration.hopCheck = policy.hopCheck
        let downloader = ImageDownloader(configuration: configuration)
        let source = allowed.url("/redirect-to?url=\(outside.url("/files/a.png").absoluteString)")
        let url = try policy.check(source.absoluteString)
        do {
            _ = try await downloader.download(url)
            Issue.record("the redirect outside the prefixes was followed")
        } catch let error as ImageError {
            #expect(error.code == .destinationRefused)
            #expect(error.message.contains("outside the allowed source prefixes"))
        }
        #expect(allowed.log.requests.count == 1)
        #expect(outside.log.requests.isEmpty)
        try await downloader.shutdown()
        await allowed.shutdown()
        await outside.shutdown()
    }
}
