import Foundation
import Testing
import WebImage
import WebImageProxyURL

@testable import WebImageServer

/// `--allow-source` against an origin that reads `%2F` as `/`: a real nginx with `/f/ok.png` and
/// `/private/secret.png`, and a proxy allowed only `/f/`. No spelling of a `..` hidden in an encoded slash or
/// backslash fetches the secret, through the first URL or a redirect, while files under `/f/` (one with `%2F` in
/// its name too) still answer.
@Suite(.timeLimit(.minutes(2)))
struct SourcePrefixEscapeTests {
    /// The spellings of `/f/../private/secret.png` this test tries, all refused before any request.
    static let escapes = [
        "/f/..%2Fprivate/secret.png", "/f/..%2fprivate/secret.png", "/f/..%5Cprivate/secret.png",
        "/f/..%5cprivate/secret.png", "/f/%2e%2e%2fprivate/secret.png", "/f/%2E%2e%2Fprivate/secret.png",
        "/f/..\\private/secret.png", "/f/x%2F..%2F..%2Fprivate/secret.png", "/f/..;/private/secret.png",
    ]

    @Test func noSpellingOfAnEncodedDotDotLeavesThePrefix() async throws {
        let ok = try ProxyHarness.photo(width: 64, height: 48, as: .png)
        let secret = try ProxyHarness.photo(width: 40, height: 30, as: .png, alpha: true)
        let nginx = try await NginxOrigin.start(
            files: ["f/ok.png": ok, "f/sub/named.png": ok, "private/secret.png": secret],
            locations: ["location = /f/jump { return 302 /f/..%2Fprivate/secret.png; }"])
        do {
            try await Self.check(nginx, ok: ok, secret: secret)
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
    }

    private static func check(_ nginx: NginxOrigin, ok: Data, secret: Data) async throws {

        // The origin itself resolves the encoded slash: asked directly, it answers the secret.
        let direct = try await Self.fetch(nginx.url("/f/..%2Fprivate/secret.png"))
        #expect(direct == secret)

        try await ProxyHarness.with(configuring: { $0.allowedSourcePrefixes = [nginx.url("/f/")] }) { harness throws in
            func get(_ source: String) async -> ProxyResponse {
                await harness.get("/_/" + Base64URL.encode(Array(source.utf8)))
            }
            for escape in Self.escapes {
                let answer = await get(nginx.url(escape))
                #expect(answer.status == 404, "\(escape)")
                #expect(answer.bodyData != secret, "\(escape)")
            }
            // The plain form, which is percent-decoded once: `%252F` there is `%2F` in the source.
            let plain = await harness.get("/_/plain/" + nginx.url("/f/..%252Fprivate/secret.png"))
            #expect(plain.status == 404)
            // A redirect into the secret is refused at its hop.
            let jump = await get(nginx.url("/f/jump"))
            #expect(jump.status == 404 && jump.bodyData != secret)
            // Double encoding is decoded once, as nginx reads it: the name `..%2Fprivate` in /f/, which is not there.
            let double = await get(nginx.url("/f/..%252Fprivate/secret.png"))
            #expect(double.status == 404)
            // Inside the prefix, files answer; `%2F` in a name that cannot climb too (nginx reads it as `/`).
            let fine = await get(nginx.url("/f/ok.png"))
            #expect(fine.status == 200)
            #expect(try ProxyHarness.decode(fine).size == PixelSize(width: 64, height: 48))
            let slashInName = await get(nginx.url("/f/sub%2Fnamed.png"))
            #expect(slashInName.status == 200)
        }

        // nginx logs requests in the order its one worker finishes them: after this answer, all the above are in.
        _ = try await Self.fetch(nginx.url("/f/ok.png"))
        let accesses = nginx.accesses
        // The secret went out once, to the direct request above, never to the proxy.
        #expect(accesses.filter { $0.resolvedPath == "/private/secret.png" }
                    == [.init(status: 200, requestURI: "/f/..%2Fprivate/secret.png", resolvedPath: "/private/secret.png")])
        // The refused spellings (the plain one too) never reached nginx; the redirect's first hop did, its target
        // did not. Then the double encoding, the two files inside the prefix and the last direct request.
        #expect(accesses.map(\.requestURI) == [
            "/f/..%2Fprivate/secret.png", "/f/jump", "/f/..%252Fprivate/secret.png", "/f/ok.png", "/f/sub%2Fnamed.png",
            "/f/ok.png",
        ], "\(accesses)")
        #expect(accesses.first { $0.requestURI == "/f/..%252Fprivate/secret.png" }
                    == .init(status: 404, requestURI: "/f/..%252Fprivate/secret.png", resolvedPath: "/f/..%2Fprivate/secret.png"))
    }

    /// GETs `url` straight from the origin (no proxy, no prefixes) and returns the body.
    private static func fetch(_ url: String) async throws -> Data {
        var configuration = ImageDownloaderConfiguration()
        configuration.retryPolicy = .none
        let downloader = ImageDownloader(configuration: configuration)
        do {
            let response = try await downloader.download(try #require(URL(string: url)))
            try await downloader.shutdown()
            return response.data
        } catch {
            try? await downloader.shutdown()
            throw error
        }
    }
}
