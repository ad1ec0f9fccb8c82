import Foundation
import CoderTestSupport
import Testing
import WebImage

@testable import WebImageServer

/// `s3://bucket/key` sources, end to end against moto's S3 API with IAM authentication on: signed GETs of the
/// object at the configured endpoint (on loopback, which the endpoint alone may be), the store's 404s and 403s
/// passed on as imgproxy passes an origin's, and the object cached under its `s3://` URL.
@Suite struct S3SourceTests {
    static let bucket = "images"

    /// A proxy reading `moto`'s S3 with `accessKeyID` and `secret` (moto's own key unless told), loopback
    /// sources otherwise refused, run with `body` and its caches removed afterwards.
    static func withProxy(_ moto: MotoS3, secret: String? = nil, deniedBuckets: [String] = [],
                          _ body: (ImageProxy) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-s3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var store = ObjectStore(provider: .s3, accessKeyID: moto.accessKeyID,
                                secretAccessKey: secret ?? moto.secretAccessKey)
        store.endpoint = moto.endpoint
        store.deniedBuckets = deniedBuckets
        var configuration = ProxyConfiguration()
        configuration.cacheDirectory = folder
        configuration.port = 0
        configuration.allowsLoopbackSources = false
        configuration.objectStores = [store]
        configuration.downloadTimeout = .seconds(120)
        configuration.requestTimeout = .seconds(120)
        try await body(ImageProxy(configuration: configuration))
    }

    static func get(_ proxy: ImageProxy, _ options: String, _ source: String) async -> ProxyResponse {
        await proxy.respond(to: ProxyRequest(method: "GET", path: "/_/\(options)/plain/\(source)@png"))
    }

    @Test func anObjectIsSignedFetchedAndRendered() async throws {
        let photo = try ProxyHarness.photo(width: 400, height: 300, as: .jpeg)
        try await MotoS3.with(bucket: Self.bucket, objects: ["dir/cat photo.jpg": photo]) { moto in
            try await Self.withProxy(moto) { proxy in
                let response = await Self.get(proxy, "rs:fit:100:100", "s3://images/dir/cat%20photo.jpg")
                #expect(response.status == 200, "\(String(decoding: response.bodyData, as: UTF8.self))")
                let size = try ProxyHarness.decode(response).size
                #expect(size.width == 100 && size.height == 75)
                // The store's Last-Modified flows through as an HTTP origin's does.
                #expect(response.header("Last-Modified")?.hasSuffix(" GMT") == true)

                // Another rendition of the same object comes from the source cache, under its s3:// URL:
                // the store is gone by now.
                moto.stop()
                let again = await Self.get(proxy, "rs:fit:40:40", "s3://images/dir/cat%20photo.jpg")
                #expect(again.status == 200)
                #expect(try ProxyHarness.decode(again).size.width == 40)
            }
        }
    }

    @Test func missingKeysAndBucketsAreNotFound() async throws {
        let photo = try ProxyHarness.photo(width: 40, height: 30, as: .jpeg)
        try await MotoS3.with(bucket: Self.bucket, objects: ["a.jpg": photo]) { moto in
            try await Self.withProxy(moto, deniedBuckets: ["secret"]) { proxy in
                #expect(await Self.get(proxy, "w:10", "s3://images/missing.jpg").status == 404)
                #expect(await Self.get(proxy, "w:10", "s3://no-such-bucket/a.jpg").status == 404)
                // A denied bucket is refused before anything is asked of the store.
                #expect(await Self.get(proxy, "w:10", "s3://secret/a.jpg").status == 404)
                #expect(await Self.get(proxy, "w:10", "s3://images/a.jpg").status == 200)
                // The endpoint's exemption from the address policy is the endpoint's alone: an http source on
                // the same loopback address is still refused.
                let http = moto.endpoint.absoluteString + "/images/a.jpg"
                #expect(await Self.get(proxy, "w:10", http).status == 404)
            }
        }
    }

    /// With a wrong secret the store refuses the signature (403), and that is what the client gets: never the image.
    @Test func aWrongSecretIsRefusedByTheStore() async throws {
        let photo = try ProxyHarness.photo(width: 40, height: 30, as: .jpeg)
        try await MotoS3.with(bucket: Self.bucket, objects: ["a.jpg": photo]) { moto in
            try await Self.withProxy(moto, secret: "not-" + moto.secretAccessKey) { proxy in
                let response = await Self.get(proxy, "w:10", "s3://images/a.jpg")
                #expect(response.status == 403)
                #expect((try? ProxyHarness.decode(response)) == nil)
            }
        }
    }
}
