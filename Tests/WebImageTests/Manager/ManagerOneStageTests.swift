import Foundation
import TestImageServer
import Testing
@testable import WebImage

@Suite("Image manager: one transfer stage with its downloader, priorities that reach every queue")
struct ManagerOneStageTests {
    /// Runs `body` with a loopback server, a downloader made with `change` and a manager loading through it.
    private static func with(downloader change: (inout ImageDownloaderConfiguration) -> Void = { _ in },
                             manager configuration: ImageManager.Configuration = .init(),
                             coders: ImageCoders = .shared,
                             _ body: (TestImageServer, ImageDownloader, ImageManager) async throws -> Void)
        async throws {
        try await LoadingTest.withServer { server in
            try await LoadingTest.withDownloader(LoadingTest.configuration(change)) { downloader in
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let manager = ImageManager(cache: ImageCache(folder: folder.url, coders: coders), loader: downloader,
                                           coders: coders, configuration: configuration)
                try await body(server, downloader, manager)
            }
        }
    }

    @Test("a manager's loads and the downloader's direct callers share one limit and one merge")
    func oneLimitAndOneMerge() async throws {
        try await Self.with(downloader: { $0.maxConcurrentDownloads = 1 },
                            manager: .init(maxConcurrentLoads: 6)) { server, downloader, manager in
            server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            server.serve("b.png", data: try ManagerTest.png(RGBA(4, 5, 6)))
            let shared = server.url("/gate/a/a.png")
            let managed = manager.imageTask(from: shared)
            await server.expectEventually { $0.inFlight == 1 }
            // A direct download of the same URL joins the manager's transfer: one request, two callers.
            async let direct = downloader.download(shared)
            await expectEventually { downloader.stage.transfers.all.first?.subscriberCount == 2 }
            // A manager load of another URL waits for the one slot, the downloader's, whoever holds it.
            let other = manager.imageTask(from: server.url("/gate/b/b.png"))
            await expectEventually { downloader.queuedCount == 1 && downloader.runningCount == 1 }
            #expect(server.log.inFlight == 1)
            server.openGate("a")
            let (image, bytes) = try await (managed.result, direct)
            #expect(image.image.pixels[0, 0] == RGBA(1, 2, 3))
            #expect(try ImageCoders.shared.decode(bytes.data, options: DecodeOptions()).pixels[0, 0] == RGBA(1, 2, 3))
            await server.expectEventually { $0.inFlight == 1 }
            server.openGate("b")
            #expect(try await other.result.image.pixels[0, 0] == RGBA(4, 5, 6))
            #expect(server.log.paths == ["/gate/a/a.png", "/gate/b/b.png"])
            await expectEventually { downloader.runningCount == 0 && downloader.queuedCount == 0 }
            #expect(downloader.stage.transfers.count == 0)
        }
    }

    @Test("raising a queued load's priority after it started moves its transfer ahead")
    func raisedPriorityReachesTheTransfer() async throws {
        try await Self.with(downloader: { $0.maxConcurrentDownloads = 1 }) { server, downloader, manager in
            server.serve("a.png", data: try ManagerTest.png(RGBA(1, 2, 3)))
            let blocker = manager.imageTask(from: server.url("/gate/b/a.png"))
            await server.expectEventually { $0.inFlight == 1 }
            let normal = manager.imageTask(from: server.url("/gate/n/a.png"))
            let late = manager.imageTask(ImageRequest(url: server.url("/gate/l/a.png"), priority: .low))
            await expectEventually { downloader.queuedCount == 2 }
            late.priority = .high
            for gate in ["b", "n", "l"] { server.openGate(gate) }
            _ = try await (blocker.result, normal.result, late.result)
            #expect(server.log.paths == ["/gate/b/a.png", "/gate/l/a.png", "/gate/n/a.png"])
            #expect(downloader.queuedCount == 0)
        }
    }

    @Test("raising a load's priority while it waits for a decode slot moves its decode ahead")
    func raisedPriorityReachesTheDecode() async throws {
        let coder = GatedDecoder()
        defer { coder.release() }
        try await Self.with(manager: .init(maxConcurrentDecodes: 1), coders: ImageCoders(coders: [coder])) {
            server, _, manager in
            for (name, colour) in [("b", RGBA(1, 0, 0)), ("n", RGBA(2, 0, 0)), ("l", RGBA(3, 0, 0))] {
                server.serve("\(name).png", data: try ManagerTest.png(colour))
            }
            let blocker = manager.imageTask(from: server.url("/files/b.png"))
            await expectEventually { coder.waiting }
            let normal = manager.imageTask(from: server.url("/files/n.png"))
            let late = manager.imageTask(ImageRequest(url: server.url("/files/l.png"), priority: .low))
            await expectEventually { manager.decoding.slots.waiting == 2 }
            late.priority = .high
            coder.release()
            _ = try await (blocker.result, normal.result, late.result)
            #expect(coder.decodedReds == [1, 3, 2])
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
            configuration.decryptor = .base64
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
                decryptor: .base64)))
            #expect(own.image.pixels[0, 0] == RGBA(7, 8, 9))
            #expect(contextModified.withLock { $0 } == 1)
            #expect(downloaderModified.withLock { $0 } == 1)
            #expect(server.log.count("/files/a.b64") == 1 && server.log.count("/files/b.b64") == 1)
        }
    }

    @Test("a context's own loader loads through the manager's stage: merged, and under the stage's limit")
    func aLoaderInAContext() async throws {
        try await Self.with(downloader: { $0.maxConcurrentDownloads = 1 }) { server, downloader, manager in
            server.serve("a.png", data: try ManagerTest.png(RGBA(5, 6, 7)))
            let blocker = manager.imageTask(from: server.url("/gate/b/a.png"))
            await server.expectEventually { $0.inFlight == 1 }
            let loader = GateLoader(body: try ManagerTest.png(RGBA(8, 9, 10)))
            let context = ImageContext(loader: loader)
            let first = manager.imageTask(ImageRequest(url: URL(string: "gate://own")!, context: context))
            let second = manager.imageTask(ImageRequest(url: URL(string: "gate://own")!, context: context))
            await expectEventually { downloader.queuedCount == 1 }
            #expect(loader.started.isEmpty)
            server.openGate("b")
            _ = try await blocker.result
            await expectEventually { loader.started == ["own"] }
            loader.open("own")
            let (a, b) = try await (first.result, second.result)
            #expect(a.image.pixels[0, 0] == RGBA(8, 9, 10) && b.image.pixels[0, 0] == RGBA(8, 9, 10))
            #expect(loader.started == ["own"])
            #expect(downloader.queuedCount == 0 && downloader.runningCount == 0)
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

/// Decodes PNGs with the built-in coders, holding the first decode until released, and records the red value of
/// each image it decoded, in order.
final class GatedDecoder: ImageCoder {
    private let gate = DispatchSemaphore(value: 0)
    private let state = Locked((first: true, waiting: false, released: false, reds: [UInt8]()))

    var waiting: Bool { state.withLock { $0.waiting } }
    var decodedReds: [UInt8] { state.withLock { $0.reds } }

    /// Lets the held decode go (once; later calls do nothing).
    func release() {
        let wasHeld = state.withLock { state -> Bool in
            defer { state.released = true }
            return !state.released
        }
        if wasHeld { gate.signal() }
    }

    func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let holds = state.withLock { state -> Bool in
            defer { state.first = false }
            if state.first { state.waiting = true }
            return state.first
        }
        if holds { gate.wait() }
        let image = try ImageCoders.shared.decode(data, options: options)
        state.withLock { $0.reds.append(image.pixels[0, 0].r) }
        return image
    }
    func canEncode(to format: ImageFormat) -> Bool { true }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try ImageCoders.shared.encode(image, as: format, options: options)
    }
}
