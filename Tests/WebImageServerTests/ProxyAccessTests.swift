import Foundation
import Testing

@testable import WebImageServer

/// imgproxy's three answers about who may ask and where: the bearer secret (`IMGPROXY_SECRET`), CORS
/// (`IMGPROXY_ALLOW_ORIGIN`) and the path prefix (`IMGPROXY_PATH_PREFIX`), on the full path and on memory hits.
@Suite struct ProxyAccessTests {
    static let secret = "s3cr3t-token"

    func get(_ harness: ProxyHarness, _ path: String, authorization: String? = nil,
             method: String = "GET") async -> ProxyResponse {
        await harness.proxy.respond(to: ProxyRequest(method: method, path: path, authorization: authorization))
    }

    @Test func withASecretOnlyRequestsCarryingItAreAnsweredAndHealthStaysOpen() async throws {
        try await ProxyHarness.with(configuring: { $0.secret = Self.secret }) { harness in
            let path = harness.plainPath(["w:40"], "photo.jpg")
            for refused in [nil, "Bearer wrong", "Bearer \(Self.secret)x", "Bearer s3cr3t-toke", Self.secret,
                            "bearer \(Self.secret)", "Basic \(Self.secret)"] {
                let answer = await get(harness, path, authorization: refused)
                #expect(answer.status == 403, "\(refused ?? "none")")
                #expect(String(buffer: answer.body).hasPrefix("Forbidden"))
            }
            // Refused before anything is fetched.
            #expect(harness.origin.log.requests.isEmpty)
            let bearer = "Bearer \(Self.secret)"
            #expect(await get(harness, path, authorization: bearer).status == 200)
            // A memory hit (the result's repeats) is never answered without the secret, on either path.
            #expect(await get(harness, path, authorization: bearer).status == 200)
            let hit = harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path,
                                                                        authorization: bearer))
            #expect(hit?.status == 200)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)) == nil)
            #expect(harness.proxy.immediateResponse(
                to: ProxyRequest(method: "GET", path: path, authorization: "Bearer nope")) == nil)
            #expect(await get(harness, path).status == 403)
            #expect(await get(harness, path, method: "HEAD").status == 403)
            #expect(await get(harness, "/health").status == 200)
            #expect(await get(harness, "/metrics").status == 403)
            #expect(await get(harness, "/metrics", authorization: bearer).status == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test func withAnOriginAnswersCarryCORSAndPreflightsAreAnswered() async throws {
        let origin = "https://app.example"
        try await ProxyHarness.with(configuring: { $0.allowedOrigin = origin }) { harness in
            let path = harness.plainPath(["w:40"], "photo.jpg")
            let answers = [await get(harness, path), await get(harness, path),
                           harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)),
                           await get(harness, path, method: "HEAD"),
                           await get(harness, harness.plainPath(["zoomy:1"], "photo.jpg"))]
            #expect(answers.map { $0?.status } == [200, 200, 200, 200, 404])
            for answer in answers {
                #expect(answer?.header("Access-Control-Allow-Origin") == origin)
                #expect(answer?.header("Access-Control-Allow-Methods") == "GET, OPTIONS")
            }
            let preflight = await get(harness, path, method: "OPTIONS")
            #expect(preflight.status == 200 && preflight.body.readableBytes == 0)
            #expect(preflight.header("Access-Control-Allow-Origin") == origin)
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET, OPTIONS")
            let post = await get(harness, path, method: "POST")
            #expect(post.status == 405 && post.header("Allow") == "GET, HEAD, OPTIONS")
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }

    @Test func withoutAnOriginThereAreNoCORSHeadersAndOptionsIsRefused() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["w:40"], "photo.jpg")
            let answer = await get(harness, path)
            #expect(answer.status == 200 && answer.header("Access-Control-Allow-Origin") == nil)
            let options = await get(harness, path, method: "OPTIONS")
            #expect(options.status == 405 && options.header("Access-Control-Allow-Origin") == nil)
        }
    }

    @Test func aSecretAndAnOriginTogetherLetPreflightsThroughAndRefuseWithCORS() async throws {
        let origin = "*"
        try await ProxyHarness.with(configuring: { $0.secret = Self.secret; $0.allowedOrigin = origin }) { harness in
            let path = harness.plainPath(["w:40"], "photo.jpg")
            // A browser cannot read a refusal without CORS headers, so the 403 carries them, as imgproxy's does.
            let refused = await get(harness, path)
            #expect(refused.status == 403 && refused.header("Access-Control-Allow-Origin") == origin)
            // Browsers send preflights without credentials.
            #expect(await get(harness, path, method: "OPTIONS").status == 200)
            #expect(harness.origin.log.requests.isEmpty)
        }
    }

    @Test func withAPrefixEveryRouteLivesUnderItAndTheSignatureCoversThePathAfterIt() async throws {
        let signer = try URLSignature(keyHex: "736563726574", saltHex: "68656c6c6f")
        try await ProxyHarness.with(configuring: { $0.signature = signer; $0.pathPrefix = "/img/v1" }) { harness in
            let unsigned = harness.plainPath(["w:30"], "photo.jpg")
            let signedPart = String(unsigned.dropFirst(2))  // after "/_"
            let inner = "/" + signer.signature(for: signedPart[...]) + signedPart
            #expect(await get(harness, "/img/v1" + inner).status == 200)
            // Signed over the prefix too: not how imgproxy signs.
            let withPrefix = "/img/v1" + signedPart
            #expect(await get(harness, "/img/v1/" + signer.signature(for: withPrefix[...]) + signedPart).status == 403)
            // Outside the prefix: no route.
            for outside in [inner, "/img/v1x" + inner, "/img" + inner, "/health", "/metrics", "/img/v1health"] {
                let answer = await get(harness, outside)
                #expect(answer.status == 404, "\(outside)")
                #expect(String(buffer: answer.body).contains("outside the path prefix"), "\(outside)")
            }
            #expect(await get(harness, "/img/v1/health").status == 200)
            #expect(await get(harness, "/img/v1/metrics").status == 200)
            // The memory hit reads the prefix as the full path does.
            #expect(await get(harness, "/img/v1" + inner).status == 200)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: "/img/v1" + inner))?.status
                    == 200)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: inner)) == nil)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
        }
    }
}
