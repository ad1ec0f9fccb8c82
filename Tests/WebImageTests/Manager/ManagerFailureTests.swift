import Foundation
import TestImageServer
import Testing
@testable import WebImage

@Suite("Image manager: failures and revalidation")
struct ManagerFailureTests {
    @Test("empty, malformed and unsupported URLs fail with invalidURL and send nothing")
    func invalidURLs() async throws {
        try await ManagerHarness.with { h in
            let manager = h.manager
            var codes: [ImageError.Code?] = []
            codes.append(await Self.code { try await manager.loadImage(from: nil as URL?) })
            for text in ["", "   ", "not a url", "ftp://example.com/a.png", "mailto:a@b"] {
                codes.append(await Self.code { try await manager.loadImage(from: text) })
            }
            #expect(codes == Array(repeating: .invalidURL, count: 6))
            #expect(h.server.log.requests.isEmpty)
        }
    }

    private static func code(_ body: () async throws -> ImageResult) async -> ImageError.Code? {
        do {
            _ = try await body()
            return nil
        } catch {
            return (error as? ImageError)?.code
        }
    }

    @Test("404 and bad data block the URL; retryFailed tries again and a success unblocks it")
    func blockedURLs() async throws {
        try await ManagerHarness.with { h in
            let missing = h.server.url("/status/404")
            #expect(await LoadingTest.failure { try await h.manager.loadImage(from: missing) }?.code == .invalidDownloadStatusCode)
            #expect(await LoadingTest.failure { try await h.manager.loadImage(from: missing) }?.code == .blackListed)
            #expect(h.server.log.count("/status/404") == 1)
            _ = await LoadingTest.failure { try await h.manager.loadImage(from: missing, options: [.retryFailed]) }
            #expect(h.server.log.count("/status/404") == 2)

            h.server.serve("junk.png", data: Data("not an image at all".utf8), contentType: "image/png")
            let junk = h.server.url("/files/junk.png")
            #expect(await LoadingTest.failure { try await h.manager.loadImage(from: junk) }?.code == .badImageData)
            #expect(h.manager.failedURLs.contains(junk))
            #expect(await h.cache.contains(forKey: junk.absoluteString, in: .all) == .none)
            h.server.serve("junk.png", data: try ManagerTest.png(RGBA(8, 8, 8)))
            #expect(await LoadingTest.failure { try await h.manager.loadImage(from: junk) }?.code == .blackListed)
            _ = try await h.manager.loadImage(from: junk, options: [.retryFailed])
            #expect(!h.manager.failedURLs.contains(junk))
            h.manager.removeAllFailedURLs()
            #expect(h.manager.failedURLs.count == 0)
        }
    }

    @Test("a blocked URL's failure keeps the first failure's status and cause, in words a client may see")
    func blockedFailuresKeepTheirCause() async throws {
        try await ManagerHarness.with { h in
            let missing = h.server.url("/status/404")
            let first = await LoadingTest.failure { try await h.manager.loadImage(from: missing) }
            #expect(first?.httpStatus(for: .remoteSource) == 404)
            let blocked = try #require(await LoadingTest.failure { try await h.manager.loadImage(from: missing) })
            #expect(blocked.code == .blackListed)
            #expect(blocked.statusCode == 404)
            #expect((blocked.underlyingError as? ImageError)?.code == .invalidDownloadStatusCode)
            #expect(blocked.httpStatus(for: .remoteSource) == 404)
            #expect(!blocked.message.contains(missing.absoluteString) && !blocked.message.contains("retryFailed"))
            #expect(h.server.log.count("/status/404") == 1)

            h.server.serve("junk.png", data: Data("not an image at all".utf8), contentType: "image/png")
            let junk = h.server.url("/files/junk.png")
            _ = await LoadingTest.failure { try await h.manager.loadImage(from: junk) }
            let blockedJunk = try #require(await LoadingTest.failure { try await h.manager.loadImage(from: junk) })
            #expect((blockedJunk.underlyingError as? ImageError)?.code == .badImageData)
            #expect(blockedJunk.statusCode == nil)
            #expect(blockedJunk.httpStatus(for: .remoteSource) == 422)
        }
    }

    @Test("the HTTP status a server answers tells an upload's fault from a remote source's")
    func httpStatusesForUploadsAndRemoteSources() {
        let cases: [(ImageError, upload: Int, remote: Int)] = [
            (ImageError(.badImageData, "x"), 422, 422),
            (ImageError(.unsupportedFormat, "x"), 415, 422),
            (ImageError(.imageTooLarge, "x"), 413, 422),
            (ImageError(.responseTooLarge, "x"), 413, 422),
            (ImageError(.timedOut, "x"), 408, 504),
            (ImageError(.connectionRefused, "x"), 502, 502),
            (ImageError(.invalidDownloadStatusCode, "x", statusCode: 500), 502, 502),
            (ImageError(.invalidDownloadStatusCode, "x", statusCode: 410), 404, 404),
            (ImageError(.destinationRefused, "x"), 403, 403),
            (ImageError(.invalidURL, "x"), 400, 400),
            (ImageError(.cancelled, "x"), 499, 499),
            (ImageError(.io, "x"), 500, 500),
            (ImageError.blocked(after: ImageError(.imageTooLarge, "x")), 413, 422),
            (ImageError.blocked(after: nil), 404, 404),
        ]
        for (error, upload, remote) in cases {
            #expect(error.httpStatus(for: .upload) == upload, "\(error)")
            #expect(error.httpStatus(for: .remoteSource) == remote, "\(error)")
        }
    }

    @Test("a format no coder reads does not block the URL: the server may negotiate another one next time")
    func unsupportedFormatsDoNotBlock() async throws {
        try await ManagerHarness.with { h in
            let heic = Data([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
            h.server.serve("photo", data: heic, contentType: "image/heic")
            let url = h.server.url("/files/photo")
            #expect(await LoadingTest.failure { try await h.manager.loadImage(from: url) }?.code == .unsupportedFormat)
            #expect(!h.manager.failedURLs.contains(url))
            h.server.serve("photo", data: try ManagerTest.png(RGBA(1, 2, 3)))
            _ = try await h.manager.loadImage(from: url)
            #expect(h.server.log.count("/files/photo") == 2)
        }
    }

    @Test("5xx does not block the URL")
    func serverErrorsDoNotBlock() async throws {
        try await ManagerHarness.with { h in
            let url = h.server.url("/status/503")
            _ = await LoadingTest.failure { try await h.manager.loadImage(from: url) }
            _ = await LoadingTest.failure { try await h.manager.loadImage(from: url) }
            #expect(h.server.log.count("/status/503") == 2)
            #expect(!h.manager.failedURLs.contains(url))
        }
    }

    @Test("blocked entries expire")
    func expiry() throws {
        let failed = FailedURLs(expiry: .zero)
        let url = try #require(URL(string: "https://h/a.png"))
        failed.insert(url)
        #expect(!failed.contains(url))
        let forever = FailedURLs()
        forever.insert(url)
        #expect(forever.contains(url))
        forever.remove(url)
        #expect(!forever.contains(url))
    }

    @Test("refreshCached: a 304 delivers the cached image once; a 200 replaces it")
    func refreshCached() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("a.png", data: try ManagerTest.png(RGBA(100, 0, 0)), etag: "\"v1\"")
            let url = h.server.url("/files/a.png")
            _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            let task = h.manager.imageTask(from: url, options: [.refreshCached, .waitStoreCache])
            var finishedCount = 0, delivered: ImageResult?
            for try await event in task.events {
                if case .finished(let result) = event {
                    finishedCount += 1
                    delivered = result
                }
            }
            #expect(finishedCount == 1)
            #expect(delivered?.cacheType == .memory)
            #expect(h.server.log.requests(for: "/files/a.png").last?.header("If-None-Match") == "\"v1\"")

            h.server.serve("a.png", data: try ManagerTest.png(RGBA(0, 100, 0)), etag: "\"v2\"")
            let fresh = try await h.manager.loadImage(from: url, options: [.refreshCached, .waitStoreCache])
            #expect(fresh.cacheType == .none)
            #expect(fresh.image.pixels[0, 0] == RGBA(0, 100, 0))
            let next = try await h.freshManager().loadImage(from: url)
            #expect(next.image.pixels[0, 0] == RGBA(0, 100, 0))
            #expect(h.server.log.count("/files/a.png") == 3)
        }
    }
}
