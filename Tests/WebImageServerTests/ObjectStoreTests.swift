import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// How an `s3://` or `gs://` source becomes the URL of its object at the store, and which sources the policy lets
/// through before anything is sent.
@Suite struct ObjectStoreTests {
    static func s3(endpoint: String? = nil, pathStyle: Bool = true) -> ObjectStore {
        var store = ObjectStore(provider: .s3, accessKeyID: "id", secretAccessKey: "secret")
        store.endpoint = endpoint.flatMap(URL.init(string:))
        store.region = "eu-west-3"
        store.usesPathStyle = pathStyle
        return store
    }

    static func httpURL(_ store: ObjectStore, _ source: String) throws -> String? {
        let url = try #require(URL(string: source))
        let object = try #require(ObjectStore.Object(url))
        return store.httpURL(for: object)?.absoluteString
    }

    @Test func awsIsAskedInTheVirtualHostStyleAndOtherEndpointsInThePathStyle() throws {
        #expect(try Self.httpURL(Self.s3(), "s3://images/dir/cat%20photo.jpg?v1")
            == "https://images.s3.eu-west-3.amazonaws.com/dir/cat%20photo.jpg?versionId=v1")
        // A dotted bucket name would not match AWS's certificate as a host name.
        #expect(try Self.httpURL(Self.s3(), "s3://my.images/a.jpg") == "https://s3.eu-west-3.amazonaws.com/my.images/a.jpg")
        #expect(try Self.httpURL(Self.s3(endpoint: "http://minio:9000"), "s3://images/a+b.jpg")
            == "http://minio:9000/images/a%2Bb.jpg")
        #expect(try Self.httpURL(Self.s3(endpoint: "https://r2.example/base/", pathStyle: false), "s3://images/a.jpg")
            == "https://images.r2.example/base/a.jpg")
    }

    @Test func sourcesWithoutAnObjectOrWithADotSegmentNameNone() throws {
        for source in ["s3://images", "s3://images/", "s3://images/a/../secret.jpg", "s3://images/./a.jpg", "s3:///a.jpg"] {
            #expect(ObjectStore.Object(try #require(URL(string: source))) == nil, "\(source)")
        }
    }

    @Test func bucketsAllowedWinOverBucketsDenied() throws {
        var store = Self.s3()
        store.deniedBuckets = ["private"]
        #expect(store.allows(bucket: "images") && !store.allows(bucket: "private"))
        store.allowedBuckets = ["private"]
        #expect(store.allows(bucket: "private") && !store.allows(bucket: "images"))
    }

    @Test func thePolicyChecksBucketsAndPrefixesOfObjectSources() throws {
        var store = Self.s3()
        store.deniedBuckets = ["private"]
        let policy = SourcePolicy(allowedPrefixes: [], objectStores: [store])
        #expect(try policy.check("s3://images/a.jpg").absoluteString == "s3://images/a.jpg")
        #expect(throws: ProxyError.self) { try policy.check("s3://private/a.jpg") }
        #expect(throws: ProxyError.self) { try policy.check("s3://images/../private/a.jpg") }
        // Without a store for it, a scheme is refused as before.
        #expect(throws: ProxyError.self) { try policy.check("gs://images/a.jpg") }
        let prefixed = SourcePolicy(allowedPrefixes: ["s3://images/public/"], objectStores: [store])
        #expect(throws: Never.self) { try prefixed.check("S3://images/public/a.jpg") }
        #expect(throws: ProxyError.self) { try prefixed.check("s3://images/other/a.jpg") }
    }
}
