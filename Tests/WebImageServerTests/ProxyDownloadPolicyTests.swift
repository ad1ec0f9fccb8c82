import Foundation
import NIOCore
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// The downloader settings the proxy derives from its configuration, through the whole proxy: `--allow-source` on
/// a redirect (a source inside a prefix that redirects outside it is refused without the target being fetched)
/// and `--dns-server` (a name the given server points at loopback is refused, and the answer names no address).
@Suite struct ProxyDownloadPolicyTests {
    @Test
    func aRedirectOutsideTheAllowedPrefixesIsRefusedUnfetched() async throws {
        let allowed = try await TestImageServer.start()
        let outside = try await TestImageServer.start(host: "127.0.0.2")
        outside.serve("photo.jpg", data: try ProxyHarness.photo(width: 8, height: 8, as: .jpeg),
                      contentType: "image/jpeg")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-policy-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ProxyConfiguration()
        configuration.allowsLoopbackSources = true
        configuration.cacheDirectory = folder
        configuration.allowedSourcePrefixes = [allowed.url("/redirect-to").absoluteString]
        let proxy = ImageProxy(configuration: configuration)
        let source = allowed.url("/redirect-to?url=\(outside.url("/files/photo.jpg").absoluteString)").absoluteString
        let path = "/_/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let response = await proxy.respond(to: ProxyRequest(method: "GET", path: path, accept: nil, ifNoneMatch: nil))
        let text = String(buffer: response.body)
        #expect(response.status == 404, "\(text)")  // imgproxy hides why a source is refused
        #expect(text.contains("outside the allowed source prefixes"), "\(text)")
        #expect(allowed.log.requests.count == 1)
        #expect(outside.log.requests.isEmpty)
        await allowed.shutdown()
        await outside.shutdown()
    }

    @Test
    func aNameTheDNSServerPointsAtLoopbackIsRefusedWithoutSayingWhere() async throws {
        let origin = try await TestImageServer.start()
        origin.serve("photo.jpg", data: try ProxyHarness.photo(width: 8, height: 8, as: .jpeg), contentType: "image/jpeg")
        let dns = try await RebindingDNSServer.start(name: "images.rebind.example", answers: ["127.0.0.1"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dns-policy-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ProxyConfiguration()
        configuration.cacheDirectory = folder
        configuration.nameServer = NameServer(address: try #require(IPAddress(dns.host)), port: dns.port)
        let proxy = ImageProxy(configuration: configuration)
        let source = "http://Images.Rebind.Example:\(origin.port)/files/photo.jpg"
        let path = "/_/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let response = await proxy.respond(to: ProxyRequest(method: "GET", path: path, accept: nil, ifNoneMatch: nil))
        let text = String(buffer: response.body)
        #expect(response.status == 404, "\(text)")  // imgproxy hides why a source is refused
        #expect(text.contains("images.rebind.example") && !text.contains("127.0.0.1"), "\(text)")
        #expect(dns.addressQueries >= 1)
        #expect(origin.log.requests.isEmpty)
        await origin.shutdown()
        await dns.shutdown()
    }
}
