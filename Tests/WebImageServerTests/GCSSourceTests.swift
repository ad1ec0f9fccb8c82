import Foundation
import TestImageServer
import Testing
import WebImage

@testable import WebImageServer

/// `gs://bucket/key` sources against a loopback endpoint (the package's test server, its `files` route standing
/// for a bucket), which records each request: the signature the request carries is checked against the request as
/// the endpoint received it (its path, query and `Host`), so what is signed is what is sent; the signer itself is
/// checked against an independent computation in ``SigV4SignerTests``.
@Suite struct GCSSourceTests {
    static func withProxy(_ body: (TestImageServer, ImageProxy) async throws -> Void) async throws {
        let origin = try await TestImageServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-gcs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        origin.serve("photo.jpg", data: try ProxyHarness.photo(width: 80, height: 60, as: .jpeg),
                     contentType: "image/jpeg")
        var store = ObjectStore(provider: .googleCloudStorage, accessKeyID: "GOOG1TESTKEY", secretAccessKey: "gcs/secret")
        store.endpoint = origin.url("")
        var configuration = ProxyConfiguration()
        configuration.cacheDirectory = folder
        configuration.port = 0
        configuration.allowsLoopbackSources = false
        configuration.objectStores = [store]
        configuration.downloadTimeout = .seconds(120)
        configuration.requestTimeout = .seconds(120)
        do {
            try await body(origin, ImageProxy(configuration: configuration))
        } catch {
            await origin.shutdown()
            throw error
        }
        await origin.shutdown()
    }

    static func get(_ proxy: ImageProxy, _ source: String) async -> ProxyResponse {
        await proxy.respond(to: ProxyRequest(method: "GET", path: "/_/w:40/plain/\(source)@png"))
    }

    @Test func anObjectIsFetchedWithTheSignatureOfTheRequestAsSent() async throws {
        try await Self.withProxy { origin, proxy in
            let response = await Self.get(proxy, "gs://files/photo.jpg?1700000000000007")
            #expect(response.status == 200)
            #expect(try ProxyHarness.decode(response).size.width == 40)

            let request = try #require(origin.log.requests.last)
            #expect(request.uri == "/files/photo.jpg?generation=1700000000000007")
            #expect(request.header("x-goog-content-sha256") == SigV4Signer.emptyPayloadHash)
            let host = try #require(request.header("Host"))
            let stamp = try #require(request.header("x-goog-date"))
            let authorization = try #require(request.header("Authorization"))
            #expect(authorization.hasPrefix("GOOG4-HMAC-SHA256 Credential=GOOG1TESTKEY/\(stamp.prefix(8))/auto/storage/"
                + "goog4_request, SignedHeaders=host;x-goog-content-sha256;x-goog-date, Signature="))
            // Recomputed from what arrived: a path or host signed in one spelling and sent in another fails here.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            let date = try #require(formatter.date(from: stamp))
            let received = try #require(URL(string: "http://\(host)\(request.uri)"))
            var signer = try #require(proxy.configuration.objectStores.first).signer
            #expect(signer.signingHeaders(url: received, headers: [("host", host)], date: date)
                .first { $0.name == "Authorization" }?.value == authorization)
            // And another secret signs otherwise: the check above can fail.
            signer = SigV4Signer(dialect: .google, credentials: .init(accessKeyID: "GOOG1TESTKEY",
                                                                      secretAccessKey: "other"),
                                 region: "auto", service: "storage")
            #expect(signer.signingHeaders(url: received, headers: [("host", host)], date: date)
                .first { $0.name == "Authorization" }?.value != authorization)
        }
    }

    /// A signed request is never sent on: the endpoint's redirect (here to its own file) is not followed.
    @Test func aRedirectFromTheEndpointIsNotFollowed() async throws {
        try await Self.withProxy { origin, proxy in
            let response = await Self.get(proxy, "gs://redirect/1/photo.jpg")
            #expect(response.status == 404)
            #expect(origin.log.count("/redirect/1/photo.jpg") == 1)
            #expect(origin.log.count("/files/photo.jpg") == 0)
        }
    }
}
