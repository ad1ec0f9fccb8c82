import Foundation
import MetricsTestKit
import TestImageServer
import Testing
@testable import WebImage

/// Headers, modifiers, decryptors, progress, events and metrics through the downloader.
@Suite("ImageDownloader requests", .timeLimit(.minutes(2)))
struct ImageDownloaderRequestTests {
    let image = LoadingTest.bytes(30_000, seed: 21)

    @Test func headersLayerDefaultsDownloaderContextAndFilter() async throws {
        let configuration = LoadingTest.configuration {
            $0.headers["X-App"] = "demo"
            $0.headers["User-Agent"] = "custom-agent"
            $0.headersFilter = { url, headers in
                var headers = headers
                headers["X-Path"] = url.path
                headers["X-Drop"] = nil
                return headers
            }
        }
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let context = DownloadContext(headers: ["X-Call": "1", "X-Drop": "gone", "X-App": "override"])
                _ = try await downloader.download(server.url("/files/a.png"), context: context)
                let sent = try #require(server.log.requests.first)
                #expect(sent.header("Accept") == ImageLoadRequest.defaultAccept)
                // Only what the registered coders read: no AVIF or HEIC until their coders are added.
                #expect(sent.header("Accept") == "image/webp,image/png,image/jpeg,image/gif,image/bmp,image/x-icon,*/*;q=0.8")
                #expect(sent.header("User-Agent") == "custom-agent")
                #expect(sent.header("X-App") == "override")
                #expect(sent.header("X-Call") == "1")
                #expect(sent.header("X-Path") == "/files/a.png")
                #expect(sent.header("X-Drop") == nil)
            }
        }
    }

    @Test func requestModifierMayRedirectOrCancel() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let redirect = DownloadContext(requestModifier: { request in
                    var request = request
                    request.url = server.url("/files/a.png")
                    request.headers["X-Modified"] = "yes"
                    return request
                })
                let response = try await downloader.download(server.url("/files/other.png"), context: redirect)
                #expect(response.data == image)
                #expect(server.log.paths == ["/files/a.png"])
                #expect(server.log.requests.first?.header("X-Modified") == "yes")

                let cancel = DownloadContext(requestModifier: { _ in nil })
                let collector = ResultCollector()
                downloader.download(server.url("/files/a.png?cancelled"), context: cancel,
                                    completion: collector.completion(0))
                // Refused before anything was queued: the completion has already run.
                #expect(collector.result(0)?.errorCode == .cancelled)
                #expect(server.log.requests.count == 1)
            }
        }
    }

    @Test func responseModifierRejectsOnlyItsOwnCaller() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let collector = ResultCollector()
                let strict = DownloadContext(responseModifier: { $0.mimeType == "image/jpeg" ? $0 : nil })
                let renaming = DownloadContext(responseModifier: { metadata in
                    var metadata = metadata
                    metadata.mimeType = "image/x-renamed"
                    return metadata
                })
                downloader.download(url, context: strict, completion: collector.completion(0))
                downloader.download(url, context: renaming, completion: collector.completion(1))
                downloader.download(url, completion: collector.completion(2))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                server.openGate("g")
                await collector.wait(for: 3)
                #expect(collector.result(0)?.errorCode == .invalidDownloadResponse)
                #expect(collector.result(1)?.response?.metadata.mimeType == "image/x-renamed")
                #expect(collector.result(2)?.response?.metadata.mimeType == "image/png")
                #expect(server.log.count("/gate/g/a.png") == 1)
            }
        }
    }

    @Test func base64DecryptorRestoresTheBytes() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.b64", data: Data(image.base64EncodedString(options: .lineLength76Characters).utf8),
                         contentType: "text/plain")
            server.serve("junk", data: Data("%%%% not base64 %%%%".utf8), contentType: "text/plain")
            try await LoadingTest.withDownloader { downloader in
                let context = DownloadContext(decryptor: .base64)
                let response = try await downloader.download(server.url("/files/a.b64"), context: context)
                #expect(response.data == image)
                let error = await LoadingTest.failure {
                    try await downloader.download(server.url("/files/junk"), context: context)
                }
                #expect(error?.code == .badImageData)
            }
        }
    }

    @Test func progressRespectsTheMinimumIntervalAndEndsComplete() async throws {
        let configuration = LoadingTest.configuration { $0.minimumProgressInterval = 0.25 }
        try await LoadingTest.withServer { server in
            let data = LoadingTest.bytes(10_000)
            server.serve("a.png", data: data, contentType: "image/png")
            try await LoadingTest.withDownloader(configuration) { downloader in
                let fractions = Recorder<Double>()
                let response = try await downloader.download(
                    server.url("/slow/a.png?chunk=500&delayMs=1"),
                    progress: { fractions.append($0.fractionCompleted ?? -1) })
                #expect(response.data == data)
                let seen = fractions.all
                #expect(seen.last == 1)
                #expect(seen.count <= 5)
                #expect(zip(seen, seen.dropFirst()).allSatisfy { $1 - $0 >= 0.25 || $1 == 1 })
            }
        }
    }

    @Test func partialDataGoesOnlyToProgressiveCallers() async throws {
        try await LoadingTest.withServer { server in
            let data = LoadingTest.bytes(8_000)
            server.serve("a.png", data: data, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let url = server.url("/gate/g/a.png")
                let plain = Recorder<Data?>()
                let progressive = Recorder<Data?>()
                let collector = ResultCollector()
                downloader.download(url, progress: { plain.append($0.partialData) }, completion: collector.completion(0))
                downloader.download(url, options: .progressiveLoad, progress: { progressive.append($0.partialData) },
                                    completion: collector.completion(1))
                await server.expectEventually { $0.count("/gate/g/a.png") == 1 }
                server.openGate("g")
                await collector.wait(for: 2)
                #expect(!plain.all.isEmpty)
                #expect(plain.all.allSatisfy { $0 == nil })
                #expect(progressive.all.last == data)
                #expect(progressive.all.allSatisfy { $0.map { data.starts(with: $0) } ?? false })
            }
        }
    }

    @Test func eventsArriveInOrder() async throws {
        try await LoadingTest.withServer { server in
            server.serve("a.png", data: image, contentType: "image/png")
            try await LoadingTest.withDownloader { downloader in
                let stream = downloader.eventStream()
                let url = server.url("/files/a.png")
                _ = try await downloader.download(url)
                let missing = server.url("/status/404")
                _ = await LoadingTest.failure { try await downloader.download(missing) }
                var events: [DownloadEvent] = []
                for await event in stream {
                    events.append(event)
                    if case .finished(missing, _) = event { break }
                }
                #expect(events == [
                    .started(url), .receivedResponse(url, statusCode: 200), .stopped(url), .finished(url, error: nil),
                    .started(missing), .stopped(missing), .finished(missing, error: .invalidDownloadStatusCode),
                ])
            }
        }
    }

    @Test func errorsAreCountedByCode() async throws {
        let metrics = TestMetrics()
        let configuration = LoadingTest.configuration { $0.metricsFactory = metrics }
        try await LoadingTest.withServer { server in
            try await LoadingTest.withDownloader(configuration) { downloader in
                _ = await LoadingTest.failure { try await downloader.download(server.url("/status/500")) }
                _ = await LoadingTest.failure { try await downloader.download(server.url("/status/404")) }
                _ = await LoadingTest.failure { try await downloader.download(server.url("/empty")) }
                let statusErrors = metrics.counters(label: DownloadMetrics.errorsLabel,
                                                    dimensions: [("code", "invalidDownloadStatusCode")])
                #expect(statusErrors.map(\.totalValue) == [2])
                let badData = metrics.counters(label: DownloadMetrics.errorsLabel, dimensions: [("code", "badImageData")])
                #expect(badData.map(\.totalValue) == [1])
            }
        }
    }

    @Test func unsupportedAndMalformedURLsFailFastWithoutARequest() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withDownloader { downloader in
                let urls = [
                    try #require(URL(string: "ftp://127.0.0.1:\(server.port)/a.png")),
                    try #require(URL(string: "http:///a.png")),
                    try #require(URL(string: "mailto:someone@example.com")),
                    try #require(URL(string: "a.png")),
                ]
                for (index, url) in urls.enumerated() {
                    let collector = ResultCollector()
                    downloader.download(url, completion: collector.completion(index))
                    #expect(collector.result(index)?.errorCode == .invalidURL, "\(url)")
                    #expect(!downloader.canLoad(url))
                }
                #expect(server.log.connectionCount == 0)
            }
        }
    }

    @Test func dataAndFileURLsGoThroughTheDownloader() async throws {
        try await LoadingTest.withDownloader { downloader in
            let dataURL = try #require(URL(string: "data:image/png;base64," + image.base64EncodedString()))
            let fromData = try await downloader.download(dataURL)
            #expect(fromData.data == image)
            #expect(fromData.metadata.mimeType == "image/png")

            let file = TestScratch.root.appendingPathComponent("dl-\(UUID().uuidString).png")
            try image.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = try await downloader.download(file)
            #expect(fromFile.data == image)
            #expect(fromFile.metadata.mimeType == "image/png")
        }
    }

    @Test func aLoaderAddedLastIsAskedFirst() async throws {
        struct Fixed: ImageLoader {
            let bytes: Data
            func canLoad(_ url: URL) -> Bool { url.scheme == "data" }
            func load(_ request: ImageLoadRequest, progress: ImageLoadProgressHandler?) async throws
                -> ImageLoadResponse {
                ImageLoadResponse(data: bytes, metadata: ImageResponseMetadata(url: request.url))
            }
        }
        let loaders = ImageLoaders([DataURLImageLoader()])
        loaders.add(Fixed(bytes: Data([1, 2, 3])))
        let downloader = ImageDownloader(configuration: LoadingTest.configuration(), loaders: loaders)
        let url = try #require(URL(string: "data:,hello"))
        #expect(try await downloader.download(url).data == Data([1, 2, 3]))
        loaders.remove(Fixed(bytes: Data()))
        #expect(try await downloader.download(url).data == Data("hello".utf8))
        #expect(!downloader.canLoad(try #require(URL(string: "http://127.0.0.1/a.png"))))
    }
}
