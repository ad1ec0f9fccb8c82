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
