import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// What goes with a request after a redirect to another origin (another port or scheme; another host is in
/// HTTPImageLoaderTests): no credentials, no hand-set `Authorization` or `Cookie`; TLS still verified; `Secure`
/// cookies only over HTTPS.
@Suite("Redirects across origins", .timeLimit(.minutes(2)))
struct RedirectOriginTests {
    let image = LoadingTest.bytes(4_000, seed: 5)
    static let credentials = BasicCredentials(user: "ann", password: "pw")

    /// Two servers on 127.0.0.1: `first` (HTTPS when `firstIsTLS`) and a plain HTTP `second`.
    private func withTwoServers(firstIsTLS: Bool = false,
                                _ body: (TestImageServer, TestImageServer) async throws -> Void) async throws {
        let first = try await firstIsTLS ? TestImageServer.start(tls: Self.identity()) : TestImageServer.start()
        let second = try await TestImageServer.start()
        for server in [first, second] { server.serve("a.png", data: image, contentType: "image/png") }
        do {
            try await body(first, second)
        } catch {
            await first.shutdown()
            await second.shutdown()
            throw error
        }
        await first.shutdown()
        await second.shutdown()
    }

    static func identity() throws -> TestImageServer.TLSIdentity {
        TestImageServer.TLSIdentity(certificateChainPEM: Array(try Fixtures.data("tls/cert.pem")),
                                    privateKeyPEM: Array(try Fixtures.data("tls/key.pem")))
    }

    /// The handshake on a busy machine (and under TSan) can be slow: 8 s was missed in CI under TSan
    /// (2026-11-24); the refusal case uses a short one.
    static let patient = HTTPImageLoader.Configuration(readTimeout: .seconds(120), connectTimeout: .seconds(60))

    private func withSecrets(_ request: inout ImageLoadRequest) {
        request.credentials = Self.credentials
        request.headers["Cookie"] = "secret=1"
    }

    @Test func credentialsAreNotSentToAnotherPortOnTheSameHost() async throws {
        try await withTwoServers { first, second in
            #expect(first.host == second.host && first.port != second.port)
            try await LoadingTest.withHTTPLoader { loader in
                let target = second.url("/files/a.png").absoluteString
                var request = LoadingTest.request(first.url("/redirect-to?url=\(target)"))
                withSecrets(&request)
                let response = try await loader.load(request, progress: nil)
                #expect(response.data == image)
                #expect(first.log.requests.first?.header("Authorization") == Self.credentials.authorizationHeader)
                #expect(first.log.requests.first?.header("Cookie") == "secret=1")
                let forwarded = try #require(second.log.requests.first)
                #expect(forwarded.path == "/files/a.png")
                #expect(forwarded.header("Authorization") == nil)
                #expect(forwarded.header("Cookie") == nil)
            }
        }
    }

    @Test func credentialsAreNotSentAfterARedirectFromHTTPSToHTTP() async throws {
        try await withTwoServers(firstIsTLS: true) { secure, plain in
            try await LoadingTest.withHTTPLoader(Self.patient) { loader in
                let target = plain.url("/files/a.png").absoluteString
                var request = LoadingTest.request(secure.url("/redirect-to?url=\(target)"))
                request.allowsInvalidCertificates = true
                withSecrets(&request)
                let response = try await loader.load(request, progress: nil)
                #expect(response.data == image)
                #expect(secure.log.requests.first?.header("Authorization") == Self.credentials.authorizationHeader)
                let forwarded = try #require(plain.log.requests.first)
                #expect(forwarded.header("Authorization") == nil)
                #expect(forwarded.header("Cookie") == nil)
            }
        }
    }

    @Test func credentialsAreNotSentAfterARedirectFromHTTPToHTTPS() async throws {
        try await withTwoServers(firstIsTLS: true) { secure, plain in
            try await LoadingTest.withHTTPLoader(Self.patient) { loader in
                let target = secure.url("/files/a.png").absoluteString
                var request = LoadingTest.request(plain.url("/redirect-to?url=\(target)"))
                request.allowsInvalidCertificates = true
                withSecrets(&request)
                let response = try await loader.load(request, progress: nil)
                #expect(response.data == image)
                #expect(plain.log.requests.first?.header("Authorization") == Self.credentials.authorizationHeader)
                let forwarded = try #require(secure.log.requests.first)
                #expect(forwarded.header("Authorization") == nil)
                #expect(forwarded.header("Cookie") == nil)
            }
        }
    }

    @Test func aRedirectToAnUntrustedCertificateIsRefusedByDefault() async throws {
        try await withTwoServers(firstIsTLS: true) { secure, plain in
            // AsyncHTTPClient retries a failed handshake until the connect timeout: long enough for a loaded
            // machine to make the first (plain) hop, short enough to end the retries soon.
            try await LoadingTest.withHTTPLoader(.init(connectTimeout: .seconds(4))) { loader in
                let target = secure.url("/files/a.png").absoluteString
                let error = await LoadingTest.failure {
                    try await loader.load(LoadingTest.request(plain.url("/redirect-to?url=\(target)")), progress: nil)
                }
                // The TLS error, or on a busy machine the connect timeout that ends the client's retries.
                #expect(error?.code == .connectionFailed || error?.code == .timedOut)
                #expect(plain.log.requests.count == 1 || error?.code == .timedOut, "only a timeout stops the first hop")
                #expect(secure.log.requests.isEmpty, "no request went over the unverified connection")
            }
        }
    }

    @Test func secureCookiesAreSentOnlyOverHTTPS() async throws {
        try await withTwoServers(firstIsTLS: true) { secure, plain in
            try await LoadingTest.withHTTPLoader(Self.patient) { loader in
                func fetch(_ url: URL) async throws {
                    var request = LoadingTest.request(url)
                    request.handlesCookies = true
                    request.allowsInvalidCertificates = true
                    _ = try await loader.load(request, progress: nil)
                }
                // "s=1; Secure" and "p=2" from the HTTPS server; "t=3; Secure" from plain HTTP is not stored.
                try await fetch(secure.url("/cookie/a.png?set=s%3D1%3B%20Secure"))
                try await fetch(secure.url("/cookie/a.png?set=p%3D2"))
                try await fetch(plain.url("/cookie/a.png?set=t%3D3%3B%20Secure"))
                try await fetch(plain.url("/files/a.png"))
                try await fetch(secure.url("/files/a.png"))
                // Cookies are per host, like a browser's: the other port on 127.0.0.1 gets the plain one only.
                #expect(plain.log.requests(for: "/files/a.png").first?.header("Cookie") == "p=2")
                #expect(secure.log.requests(for: "/files/a.png").first?.header("Cookie") == "s=1; p=2")
            }
        }
    }
}
