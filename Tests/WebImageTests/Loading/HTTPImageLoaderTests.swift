import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// The HTTP loader against every misbehaving route of the real loopback server.
@Suite("HTTPImageLoader", .timeLimit(.minutes(2)))
struct HTTPImageLoaderTests {
    let image = LoadingTest.bytes(50_000)

    private func load(_ loader: HTTPImageLoader, _ url: URL,
                      _ change: (inout ImageLoadRequest) -> Void = { _ in }) async throws -> ImageLoadResponse {
        var request = ImageLoadRequest(url: url)
        request.timeout = .seconds(120)  // generous unless the test sets one: loaded sanitizer runs are slow
        change(&request)
        return try await loader.load(request, progress: nil)
    }

    @Test func servesBytesWithMetadataAndDefaultHeaders() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png", etag: "\"v1\"")
            try await LoadingTest.withHTTPLoader { loader in
                let response = try await load(loader, server.url("/files/a.png"))
                #expect(response.data == image)
                #expect(response.metadata.statusCode == 200)
                #expect(response.metadata.mimeType == "image/png")
                #expect(response.metadata.etag == "\"v1\"")
                #expect(response.metadata.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
                #expect(response.metadata.expectedContentLength == Int64(image.count))
                let sent = try #require(server.log.requests.first)
                #expect(sent.header("Accept") == ImageLoadRequest.defaultAccept)
                #expect(sent.header("User-Agent") == ImageLoadRequest.defaultUserAgent)
                #expect(sent.header("Authorization") == nil)
                #expect(sent.header("Cookie") == nil)
            }
        }
    }

    @Test(arguments: [404, 500, 503, 403])
    func badStatusIsInvalidDownloadStatusCode(code: Int) async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/status/\(code)")) }
                #expect(error?.code == .invalidDownloadStatusCode)
                #expect(error?.message.contains("\(code)") == true)
            }
        }
    }

    @Test func unknownPathIs404() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/files/missing.png")) }
                #expect(error?.code == .invalidDownloadStatusCode)
                #expect(server.log.count("/files/missing.png") == 1)
            }
        }
    }

    @Test func matchingETagIsCacheNotModified() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png", etag: "\"v7\"")
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/files/a.png")) { $0.headers["If-None-Match"] = "\"v7\"" }
                }
                #expect(error?.code == .cacheNotModified)
                let stale = try await load(loader, server.url("/files/a.png")) { $0.headers["If-None-Match"] = "\"v6\"" }
                #expect(stale.data == image)
                #expect(server.log.requests.map { $0.header("If-None-Match") } == ["\"v7\"", "\"v6\""])
            }
        }
    }

    @Test func wrongContentTypeIsRefusedOnlyWhenTypesAreRestricted() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/wrong-type/a.png")) { $0.acceptableContentTypes = ["image/*"] }
                }
                #expect(error?.code == .invalidDownloadContentType)
                let accepted = try await load(loader, server.url("/files/a.png")) {
                    $0.acceptableContentTypes = ["image/*"]
                }
                #expect(accepted.data == image)
                let unrestricted = try await load(loader, server.url("/wrong-type/a.png"))
                #expect(unrestricted.metadata.mimeType == "text/html")
            }
        }
    }

    @Test func emptyBodyIsBadImageData() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/empty")) }
                #expect(error?.code == .badImageData)
            }
        }
    }

    @Test func announcedBodyOverTheLimitIsRefusedBeforeReading() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/huge?bytes=1073741824")) { $0.maximumBodySize = 1 << 20 }
                }
                #expect(error?.code == .responseTooLarge)
                await server.expectEventually { $0.clientClosedPaths.contains("/huge") }
            }
        }
    }

    @Test func streamedBodyOverTheLimitClosesTheTransferAtTheLimit() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let received = Recorder<Int64>()
                let error = await LoadingTest.failure {
                    var request = ImageLoadRequest(url: server.url("/huge?bytes=1073741824&chunked=1"))
                    request.maximumBodySize = 1 << 20
                    // The limit is what must end it: 15 s (the default) ran out first under TSan on a loaded run.
                    request.timeout = .seconds(120)
                    return try await loader.load(request) { received.append($0.receivedBytes) }
                }
                #expect(error?.code == .responseTooLarge)
                #expect((received.all.max() ?? 0) <= 1 << 20)
                await server.expectEventually { $0.clientClosedPaths.contains("/huge") }
            }
        }
    }

    @Test func bodyShorterThanContentLengthFails() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/short/a.png")) }
                #expect(error?.code == .connectionFailed)
            }
        }
    }

    @Test func connectionResetMidBodyIsConnectionFailed() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/reset/a.png?after=1000")) }
                #expect(error?.code == .connectionFailed)
            }
        }
    }

    @Test func stalledBodyHitsTheReadTimeoutAndClosesTheConnection() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader(.init(readTimeout: .milliseconds(300))) { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/stall/a.png?after=100")) }
                #expect(error?.code == .timedOut)
                await server.expectEventually { $0.clientClosedPaths.contains("/stall/a.png") }
            }
        }
    }

    @Test func slowDripHitsTheTotalTimeout() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                // 50 000 bytes, 10 every 100 ms: over 8 minutes, so only the timeout can end it.
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/slow/a.png?chunk=10&delayMs=100")) { $0.timeout = .seconds(2) }
                }
                #expect(error?.code == .timedOut)
                await server.expectAbandoned("/slow/a.png")
            }
        }
    }

    @Test func slowDripReportsProgressInOrder() async throws {
        try await LoadingTest.withServer { server in
            let small = LoadingTest.bytes(5_000)
            server.serve("a.png", data: small, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let reports = Recorder<ImageLoadProgress>()
                var request = ImageLoadRequest(url: server.url("/slow/a.png?chunk=1000&delayMs=5"))
                request.wantsPartialData = true
                let response = try await loader.load(request) { reports.append($0) }
                #expect(response.data == small)
                let received = reports.all.map(\.receivedBytes)
                #expect(received.first == 0)
                #expect(received.last == 5_000)
                #expect(received == received.sorted())
                #expect(reports.all.first?.response?.statusCode == 200)
                for report in reports.all {
                    #expect(report.expectedBytes == 5_000)
                    #expect(report.partialData == small.prefix(Int(report.receivedBytes)))
                }
            }
        }
    }

    @Test func redirectChainIsFollowed() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let response = try await load(loader, server.url("/redirect/3/a.png"))
                #expect(response.data == image)
                #expect(response.metadata.url == server.url("/files/a.png"))
                #expect(server.log.paths == ["/redirect/3/a.png", "/redirect/2/a.png", "/redirect/1/a.png",
                                             "/files/a.png"])
            }
        }
    }

    @Test func redirectLimitIsEnforced() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure {
                    try await load(loader, server.url("/redirect/3/a.png")) { $0.maximumRedirects = 2 }
                }
                #expect(error?.code == .invalidDownloadResponse)
                #expect(server.log.count("/files/a.png") == 0)
            }
        }
    }

    @Test func redirectLoopIsRefused() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let error = await LoadingTest.failure { try await load(loader, server.url("/loop/a")) }
                #expect(error?.code == .invalidDownloadResponse)
                #expect(error?.message.contains("loop") == true)
                #expect(server.log.paths == ["/loop/a", "/loop/b"])
            }
        }
    }

    @Test func gzipBodyIsDecompressed() async throws {
        try await LoadingTest.withServer { server in
            let compressible = Data(repeating: 7, count: 200_000)
            server.serve("a.bmp", data: compressible, contentType: "image/bmp")
            try await LoadingTest.withHTTPLoader { loader in
                let response = try await load(loader, server.url("/gzip/a.bmp"))
                #expect(response.data == compressible)
                #expect(["gzip", "deflate"].contains(response.metadata.contentEncoding ?? ""))
                #expect(server.log.requests.first?.header("Accept-Encoding") == "gzip, deflate")
            }
        }
    }

    @Test func basicAuthIsSentToItsOrigin() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let url = server.url("/auth/a.png?user=ann&password=pw")
                let missing = await LoadingTest.failure { try await load(loader, url) }
                #expect(missing?.code == .invalidDownloadStatusCode)
                let wrong = await LoadingTest.failure {
                    try await load(loader, url) { $0.credentials = BasicCredentials(user: "ann", password: "no") }
                }
                #expect(wrong?.code == .invalidDownloadStatusCode)
                let response = try await load(loader, url) { $0.credentials = BasicCredentials(user: "ann", password: "pw") }
                #expect(response.data == image)
            }
        }
    }

    @Test func anUnwantedSmallBodyIsReadAndDroppedOnAKeptConnectionAndALargeOneEndsIt() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            server.serve("small.png", data: LoadingTest.bytes(1_000, seed: 3), contentType: "image/png")
            // Larger than loopback can hold in flight: a few hundred kilobytes may arrive whole before the
            // refusal takes effect, and a connection whose response was read to its end is rightly kept.
            server.serve("large.png", data: Data(repeating: 0x3C, count: 24 << 20), contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                // A refusal decided at the head (HTML), a redirect, a 404: each body is small and read to its end.
                let wrongType = await LoadingTest.failure {
                    try await load(loader, server.url("/wrong-type/small.png")) { $0.acceptableContentTypes = ["image/*"] }
                }
                #expect(wrongType?.code == .invalidDownloadContentType)
                let target = server.url("/files/a.png").absoluteString
                let redirected = try await load(loader, server.url("/redirect-to?url=\(target)"))
                #expect(redirected.data == image)
                let missing = await LoadingTest.failure { try await load(loader, server.url("/status/404")) }
                #expect(missing?.statusCode == 404)
                let direct = try await load(loader, server.url("/files/a.png"))
                #expect(direct.data == image)
                // All on the first connection (the pool may have opened another meanwhile, unused).
                #expect(Set(server.log.requests.map(\.connection)) == [0])
                // 24 MB of HTML is not read to keep a connection: the transfer ends, the connection with it.
                let large = await LoadingTest.failure {
                    try await load(loader, server.url("/wrong-type/large.png")) { $0.acceptableContentTypes = ["image/*"] }
                }
                #expect(large?.code == .invalidDownloadContentType)
                let after = try await load(loader, server.url("/files/a.png"))
                #expect(after.data == image)
                let requests = server.log.requests
                #expect(requests.map(\.path).suffix(2) == ["/wrong-type/large.png", "/files/a.png"])
                #expect(requests[requests.count - 1].connection != requests[requests.count - 2].connection)
            }
        }
    }

    @Test func credentialsAreNotForwardedToAnotherHostAfterARedirect() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let target = server.url("/files/a.png", host: "localhost").absoluteString
                let start = server.url("/redirect-to?url=\(target)")
                let response = try await load(loader, start) {
                    $0.credentials = BasicCredentials(user: "ann", password: "pw")
                    $0.headers["Cookie"] = "secret=1"
                }
                #expect(response.data == image)
                let requests = server.log.requests
                #expect(requests.map(\.path) == ["/redirect-to", "/files/a.png"])
                #expect(requests[0].header("Authorization") == BasicCredentials(user: "ann", password: "pw").authorizationHeader)
                #expect(requests[0].header("Cookie") == "secret=1")
                #expect(requests[1].header("Host")?.hasPrefix("localhost") == true)
                #expect(requests[1].header("Authorization") == nil)
                #expect(requests[1].header("Cookie") == nil)
            }
        }
    }

    @Test func credentialsStayOnSameOriginRedirects() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                _ = try await load(loader, server.url("/redirect/1/a.png")) {
                    $0.credentials = BasicCredentials(user: "ann", password: "pw")
                }
                #expect(server.log.requests.map { $0.header("Authorization") != nil } == [true, true])
            }
        }
    }

    @Test func cookiesAreSentOnlyWhenAsked() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                _ = try await load(loader, server.url("/cookie/a.png?set=session=abc")) { $0.handlesCookies = true }
                _ = try await load(loader, server.url("/files/a.png"))
                _ = try await load(loader, server.url("/files/a.png")) { $0.handlesCookies = true }
                let sent = server.log.requests(for: "/files/a.png").map { $0.header("Cookie") }
                #expect(sent == [nil, "session=abc"])
                // A response read without cookie handling stores nothing.
                _ = try await load(loader, server.url("/cookie/a.png?set=other=1"))
                #expect(loader.cookies.cookieHeader(for: server.url("/")) == "session=abc")
            }
        }
    }

    @Test func unsupportedAndMalformedURLsFailWithoutARequest() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withHTTPLoader { loader in
                let ftp = try #require(URL(string: "ftp://127.0.0.1:\(server.port)/a.png"))
                let noHost = try #require(URL(string: "http:///a.png"))
                for url in [ftp, noHost] {
                    #expect(!loader.canLoad(url))
                    let error = await LoadingTest.failure { try await load(loader, url) }
                    #expect(error?.code == .invalidURL)
                }
                #expect(server.log.connectionCount == 0)
            }
        }
    }

    /// A refused connection is known at once: it fails with `connectionRefused`, not after the connect timeout
    /// (which is set far beyond the suite's time limit here, so waiting for it fails the test), and its message
    /// shows nothing of the transport's internals.
    @Test func aRefusedConnectionFailsAtOnceAsConnectionRefused() async throws {
        let refusing = try RefusingPort()
        let url = refusing.url("/files/a.png")
        try await LoadingTest.withHTTPLoader(.init(connectTimeout: .seconds(3600))) { loader in
            let error = await LoadingTest.failure { try await load(loader, url) }
            #expect(error?.code == .connectionRefused)
            #expect(error?.message == "the server refused the connection")
        }
        // Through the downloader, with its retries (each refused at once too).
        let downloader = ImageDownloader(configuration: {
            var configuration = ImageDownloaderConfiguration()
            configuration.connectTimeout = .seconds(3600)
            configuration.retryPolicy = RetryPolicy(maximumRetries: 2, initialDelay: .milliseconds(1))
            return configuration
        }())
        let error = await LoadingTest.failure { try await downloader.download(url) }
        #expect(error?.code == .connectionRefused)
        try await downloader.shutdown()
        withExtendedLifetime(refusing) {}
    }

    @Test func cancellingTheTaskClosesTheConnection() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let url = server.url("/stall/a.png?after=10")
                let task = Task { try await load(loader, url) }
                await server.expectEventually { $0.count("/stall/a.png") == 1 }
                task.cancel()
                let error = await LoadingTest.failure { try await task.value }
                #expect(error?.code == .cancelled)
                await server.expectEventually { $0.clientClosedPaths == ["/stall/a.png"] }
            }
        }
    }
}
