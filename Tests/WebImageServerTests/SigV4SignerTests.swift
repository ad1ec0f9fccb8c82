import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// The request signer of `s3://` and `gs://` sources, against AWS's published Signature Version 4 test suite
/// (credentials AKIDEXAMPLE, region us-east-1, service "service", 20150830T123600Z), the S3 documentation's
/// worked GET example, and a Google Cloud Storage signature computed with Python's `hmac` module.
@Suite struct SigV4SignerTests {
    static let suiteSigner = SigV4Signer(
        dialect: .aws,
        credentials: .init(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    /// 2015-08-30T12:36:00Z.
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)

    /// The `Authorization` header the suite's signer adds to a GET of `target` with `headers` besides `host`
    /// (the suite sends no payload-hash header).
    static func suiteAuthorization(_ target: String, headers: [(name: String, value: String)] = [],
                                   signer: SigV4Signer = suiteSigner) throws -> String {
        let url = try #require(URL(string: "https://example.amazonaws.com" + target))
        let added = signer.signingHeaders(url: url, headers: [("Host", "example.amazonaws.com")] + headers,
                                          date: suiteDate, sendsPayloadHash: false)
        #expect(added.first { $0.name == "x-amz-date" }?.value == "20150830T123600Z")
        return try #require(added.first { $0.name == "Authorization" }?.value)
    }

    static func suiteHeader(signedHeaders: String, signature: String) -> String {
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    @Test(arguments: [
        // get-vanilla
        ("/", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        // get-vanilla-query-order-key-case: the query is sorted by name
        ("/?Param2=value2&Param1=value1", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        // get-vanilla-query-order-value: a repeated name sorts by value
        ("/?Param1=value2&Param1=value1", "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
        // get-unreserved: unreserved characters are not escaped
        ("/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
         "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
    ])
    func suiteRequestsSignAsPublished(target: String, signature: String) throws {
        #expect(try Self.suiteAuthorization(target)
            == Self.suiteHeader(signedHeaders: "host;x-amz-date", signature: signature))
    }

    /// get-header-value-trim: values are trimmed and runs of spaces inside them made one, quotes or not.
    @Test func headerValuesAreTrimmed() throws {
        let authorization = try Self.suiteAuthorization("/", headers: [("My-Header1", " value1"),
                                                                       ("My-Header2", "\"a   b   c\"")])
        #expect(authorization == Self.suiteHeader(
            signedHeaders: "host;my-header1;my-header2;x-amz-date",
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"))
    }

    /// get-header-value-order: a repeated header's values are joined in the order sent, not sorted.
    @Test func repeatedHeaderValuesKeepTheirOrder() throws {
        let authorization = try Self.suiteAuthorization("/", headers: ["value4", "value1", "value3", "value2"]
            .map { ("My-Header1", $0) })
        #expect(authorization == Self.suiteHeader(
            signedHeaders: "host;my-header1;x-amz-date",
            signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"))
    }

    /// The suite's session-token vector: the token is sent and signed as `x-amz-security-token`.
    @Test func sessionTokenIsSigned() throws {
        var credentials = Self.suiteSigner.credentials
        credentials.sessionToken = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
        let signer = SigV4Signer(dialect: .aws, credentials: credentials, region: "us-east-1", service: "service")
        #expect(try Self.suiteAuthorization("/", signer: signer) == Self.suiteHeader(
            signedHeaders: "host;x-amz-date;x-amz-security-token",
            signature: "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"))
    }

    /// The S3 documentation's example GET of `examplebucket/test.txt` with `Range: bytes=0-9`, which signs the
    /// payload hash header S3 requires.
    @Test func s3DocumentationExampleSignsAsPublished() throws {
        let signer = SigV4Signer(
            dialect: .aws,
            credentials: .init(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                               secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let added = signer.signingHeaders(url: url, headers: [("host", "examplebucket.s3.amazonaws.com"),
                                                              ("Range", "bytes=0-9")],
                                          date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(added.first { $0.name == "x-amz-content-sha256" }?.value == SigV4Signer.emptyPayloadHash)
        #expect(added.first { $0.name == "Authorization" }?.value
            == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// Google Cloud Storage's dialect. The expected signature was computed once with Python's `hmac` and
    /// `hashlib`, independently of this signer:
    ///
    /// ```python
    /// import hashlib, hmac
    /// def h(k, m): return hmac.new(k, m.encode(), hashlib.sha256).digest()
    /// secret, key_id, stamp = "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ", "GOOG1EXAMPLEKEYID", "20261128T200000Z"
    /// empty = hashlib.sha256(b"").hexdigest()
    /// headers = {"host": "storage.googleapis.com", "x-goog-content-sha256": empty, "x-goog-date": stamp}
    /// signed = ";".join(sorted(headers))
    /// canonical = "\n".join(["GET", "/example-bucket/cat%20photo.jpg", "generation=1700000000000000",
    ///     "".join(f"{k}:{headers[k]}\n" for k in sorted(headers)), signed, empty])
    /// scope = f"{stamp[:8]}/auto/storage/goog4_request"
    /// to_sign = "\n".join(["GOOG4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    /// k = ("GOOG4" + secret).encode()
    /// for part in (stamp[:8], "auto", "storage", "goog4_request"): k = h(k, part)
    /// print(hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest())
    /// ```
    @Test func googleDialectMatchesAnIndependentComputation() throws {
        var store = ObjectStore(provider: .googleCloudStorage, accessKeyID: "GOOG1EXAMPLEKEYID",
                                secretAccessKey: "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ")
        store.region = "ignored-for-gcs"
        let source = try #require(URL(string: "gs://example-bucket/cat%20photo.jpg?1700000000000000"))
        let object = try #require(ObjectStore.Object(source))
        let url = try #require(store.httpURL(for: object))
        #expect(url.absoluteString
            == "https://storage.googleapis.com/example-bucket/cat%20photo.jpg?generation=1700000000000000")
        let added = store.signer.signingHeaders(url: url, headers: [("host", "storage.googleapis.com")],
                                                date: Date(timeIntervalSince1970: 1_795_896_000))
        #expect(added.map(\.name) == ["x-goog-date", "x-goog-content-sha256", "Authorization"])
        #expect(added.last?.value
            == "GOOG4-HMAC-SHA256 Credential=GOOG1EXAMPLEKEYID/20261128/auto/storage/goog4_request, "
            + "SignedHeaders=host;x-goog-content-sha256;x-goog-date, "
            + "Signature=b4f1732df961f7e397b8729f8fc2937b3d7a73d771948dd5a97f4f108e7f1b12")
    }
}
