import Foundation
import TestImageServer
import Testing
@_spi(ServerSupport) @testable import WebImage

@Suite("Image manager: a load is merged and queued once, by the manager, even through a downloader")
struct ManagerOneStageTests {
    /// Runs `body` with a loopback server, a downloader made with `change` and a manager loading through it.
    private static func with(downloader change: (inout ImageDownloaderConfiguration) -> Void = { _ in },
                             manager configuration: ImageManager.Configuration = .init(),
                             _ body: (TestImageServer, ImageDownloader, ImageManager) async throws -> Void)
        async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withDownloader(LoadingTest.configuration(change)) { downloader in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let manager = ImageManager(cache: ImageCache(folder: folder.url), loader: downloader,
                                           configuration: configuration)
                try await body(server, downloader, manager)
            }
        }
    }

    @Test("a manager's loads wait in the manager's queue only: the downloader's narrower queue does not hold them")
    func oneQueue() async throws {
        try await Self.with(downloader: { $0.maxConcurrentDownloads = 1 },
                            manager: .init(maxConcurrentLoads: 2)) { server, downloader, manager in
            server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let first = manager.imageTask(from: server.url("/gate/g/a.png?1"))
            let second = manager.imageTask(from: server.url("/gate/g/a.png?2"))
            await server.expectEventually { $0.inFlight == 2 }
            #expect(downloader.queuedCount == 0)
            #expect(downloader.runningCount == 2)
            server.openGate("g")
            let (a, b) = try await (first.result, second.result)
            #expect(a.image.pixels[0, 0] == RGBA(1, 2, 3) && b.image.pixels[0, 0] == RGBA(1, 2, 3))
            #expect(server.log.count("/gate/g/a.png") == 2)
            await expectEventually { downloader.runningCount == 0 }
        }
    }

    @Test("raising a queued load's priority after it started moves its transfer ahead")
    func raisedPriorityReachesTheTransfer() async throws {
        try await Self.with(manager: .init(maxConcurrentLoads: 1)) { server, downloader, manager in
            server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let blocker = manager.imageTask(from: server.url("/gate/b/a.png"))
            await server.expectEventually { $0.inFlight == 1 }
            let normal = manager.imageTask(from: server.url("/gate/n/a.png"))
            let late = manager.imageTask(ImageRequest(url: server.url("/gate/l/a.png"), priority: .low))
            await expectEventually { manager.loadSlots.waiting == 2 }
            late.priority = .high
            for gate in ["b", "n", "l"] { server.openGate(gate) }
            _ = try await (blocker.result, normal.result, late.result)
            #expect(server.log.paths == ["/gate/b/a.png", "/gate/l/a.png", "/gate/n/a.png"])
            #expect(downloader.queuedCount == 0)
        }
    }

    @Test("a context's response modifier and decryptor replace the downloader's: each response passes one, once")
    func modifiersRunOnce() async throws {
        let downloaderModified = Locked(0)
        try await Self.with(downloader: { configuration in
            configuration.responseModifier = { response in
                downloaderModified.withLock { $0 += 1 }
                return response
            }
            configuration.decryptor = DownloadDecryptors.Base64()
        }) { server, _, manager in
            let png = try ManagerTest.png(RGBA(7, 8, 9))
            server.serve("a.b64", data: Data(png.base64EncodedString().utf8), contentType: "text/plain")
            server.serve("b.b64", data: Data(png.base64EncodedString().utf8), contentType: "text/plain")
            // The downloader's hooks, when the load brings none.
            let plain = try await manager.loadImage(from: server.url("/files/a.b64"))
            #expect(plain.image.pixels[0, 0] == RGBA(7, 8, 9))
            #expect(downloaderModified.withLock { $0 } == 1)
            // The load's own hooks instead: the body is decrypted once (twice would fail), and modified once.
            let contextModified = Locked(0)
            let own = try await manager.loadImage(
                from: server.url("/files/b.b64"), context: ImageContext(download: .init(
                responseModifier: { response in
                    contextModified.withLock { $0 += 1 }
                    return response
                },
                decryptor: DownloadDecryptors.Base64())))
            #expect(own.image.pixels[0, 0] == RGBA(7, 8, 9))
            #expect(contextModified.withLock { $0 } == 1)
            #expect(downloaderModified.withLock { $0 } == 1)
            #expect(server.log.count("/files/a.b64") == 1 && server.log.count("/files/b.b64") == 1)
        }
    }

    @Test("a downloader given in a context lends its request defaults, the context's headers on top, merged once")
    func aDownloaderInAContext() async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withDownloader(LoadingTest.configuration {
                $0.headers["X-App"] = "downloader"
                $0.headers["X-Kind"] = "default"
                $0.headersFilter = { _, headers in
                    var headers = headers
                    headers["X-Filtered"] = "yes"
                    return headers
                }
            }) { downloader in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let manager = ImageManager(cache: ImageCache(folder: folder.url), loader: ImageLoaders())
                server.serve("a.png", data: try ManagerTest.png(RGBA(5, 6, 7)))
                let context = ImageContext(loader: downloader.loader, download: .init(headers: ["X-Kind": "caller"]))
                let url = server.url("/gate/g/a.png")
                let first = manager.imageTask(ImageRequest(url: url, context: context))
                let second = manager.imageTask(ImageRequest(url: url, context: context))
                await server.expectEventually { $0.inFlight == 1 }
                server.openGate("g")
                let (a, b) = try await (first.result, second.result)
                #expect(a.image.pixels[0, 0] == RGBA(5, 6, 7) && b.image.pixels[0, 0] == RGBA(5, 6, 7))
                let sent = try #require(server.log.requests(for: "/gate/g/a.png").first)
                #expect(server.log.count("/gate/g/a.png") == 1)
                #expect(sent.header("X-App") == "downloader" && sent.header("X-Kind") == "caller")
                #expect(sent.header("X-Filtered") == "yes")
                #expect(downloader.queuedCount == 0 && downloader.runningCount == 0)
            }
        }
    }

    @Test("the manager's download flags are the downloader's: each maps to its own, nothing else leaks")
    func downloadFlagsMapOneToOne() {
        let pairs: [(ImageOptions, DownloadOptions)] = [
            (.lowPriority, .lowPriority), (.highPriority, .highPriority), (.progressiveLoad, .progressiveLoad),
            (.handleCookies, .handleCookies), (.allowInvalidSSLCertificates, .allowInvalidSSLCertificates),
        ]
        for (option, download) in pairs { #expect(option.downloadOptions == download) }
        let managerOnly: ImageOptions = [
            .retryFailed, .refreshCached, .transformAnimatedImage, .scaleDownLargeImages, .queryMemoryData,
            .queryMemoryDataSync, .queryDiskDataSync, .fromCacheOnly, .fromLoaderOnly, .decodeFirstFrameOnly,
            .preloadAllFrames, .waitStoreCache, .avoidDecodeImage, .refreshIfStale,
        ]
        #expect(managerOnly.downloadOptions.isEmpty)
        #expect(managerOnly.isDisjoint(with: ImageOptions(pairs.map(\.0))))
        #expect(ImageOptions(pairs.map(\.0)).downloadOptions == DownloadOptions(pairs.map(\.1)))
    }
}
