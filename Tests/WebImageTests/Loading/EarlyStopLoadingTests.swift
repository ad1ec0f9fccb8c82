import CoderTestSupport
import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// A request with an ``EarlyStop`` ends its transfer once the bytes are enough, and only then.
@Suite struct EarlyStopLoadingTests {
    static let box = PixelSize(width: 200, height: 150)
    static let rule = EarlyStop(decoding: DecodeOptions(thumbnailPixelSize: box))

    static func photo(progressive: Bool = true) throws -> Data {
        try GrainyPhoto.jpeg(width: 1600, height: 1200, progressive: progressive)
    }

    static func request(_ downloader: ImageDownloader, _ url: URL, earlyStop: EarlyStop? = rule) throws
        -> ImageLoadRequest {
        var request = try downloader.makeRequest(for: url)
        request.earlyStop = earlyStop
        return request
    }

    static func bytesSent(_ server: TestImageServer, _ path: String) async -> [Int] {
        await server.waitUntil { $0.inFlight == 0 }
        return server.log.requests(for: path).map(\.bodyBytesSent)
    }

    @Test func theTransferEndsWithAPrefixThatDecodes() async throws {
        try await LoadingTest.withServer { server in
            let data = try Self.photo()
            server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            let downloader = ImageDownloader(configuration: LoadingTest.configuration())
            // A fifth of the file, then nothing until the client leaves: the load ends only if that was enough
            // and the client closed the connection.
            let url = server.url("/stall/photo.jpg?after=\(data.count / 5)")
            let response = try await downloader.load(try Self.request(downloader, url), progress: nil)
            try? await downloader.shutdown()
            #expect(response.isPrefix)
            #expect(response.data.count * 5 <= data.count)
            #expect(response.data.prefix(response.data.count - 2) == data.prefix(response.data.count - 2))
            #expect(response.data.suffix(2) == Data([0xFF, 0xD9]))
            #expect(await Self.bytesSent(server, "/stall/photo.jpg") == [data.count / 5])
            #expect(server.log.clientClosedPaths == ["/stall/photo.jpg"])
            let thumbnail = try ImageCoders.shared.decode(response.data,
                                                          options: DecodeOptions(thumbnailPixelSize: Self.box))
            let reference = try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: Self.box))
            #expect(PixelComparison.psnr(thumbnail.pixels.bytes, reference.pixels.bytes) >= 40)
        }
    }

    @Test func withoutTheRuleOrForABaselineFileEverythingIsRead() async throws {
        try await LoadingTest.withServer { server in
            let progressive = try Self.photo()
            let baseline = try Self.photo(progressive: false)
            server.serve("progressive.jpg", data: progressive, contentType: "image/jpeg")
            server.serve("baseline.jpg", data: baseline, contentType: "image/jpeg")
            let downloader = ImageDownloader(configuration: LoadingTest.configuration())
            let whole = try await downloader.load(
                try Self.request(downloader, server.url("/files/progressive.jpg"), earlyStop: nil), progress: nil)
            let base = try await downloader.load(
                try Self.request(downloader, server.url("/files/baseline.jpg")), progress: nil)
            try? await downloader.shutdown()
            #expect(!whole.isPrefix && whole.data == progressive)
            #expect(!base.isPrefix && base.data == baseline)
        }
    }

    @Test func aFirstFrameDecodeOfAnAnimatedGIFEndsTheTransferAfterThatFrame() async throws {
        try await LoadingTest.withServer { server in
            let data = try GIFPrefixScannerTests.animation()
            server.serve("anim.gif", data: data, contentType: "image/gif")
            let downloader = ImageDownloader(configuration: LoadingTest.configuration())
            // Half the file, then nothing until the client leaves: the first frame is in the first half.
            let url = server.url("/stall/anim.gif?after=\(data.count / 2)")
            let firstFrame = DecodeOptions(firstFrameOnly: true)
            let response = try await downloader.load(
                try Self.request(downloader, url, earlyStop: EarlyStop(decoding: firstFrame)), progress: nil)
            // Every frame asked for: the whole file.
            let everyFrame = EarlyStop(decoding: DecodeOptions())
            let whole = try await downloader.load(
                try Self.request(downloader, server.url("/files/anim.gif"), earlyStop: everyFrame), progress: nil)
            try? await downloader.shutdown()
            #expect(response.isPrefix && response.data.last == 0x3B)
            #expect(response.data.dropLast() == data.prefix(response.data.count - 1))
            #expect(await Self.bytesSent(server, "/stall/anim.gif") == [data.count / 2])
            #expect(server.log.clientClosedPaths == ["/stall/anim.gif"])
            #expect(!whole.isPrefix && whole.data == data)
            let frame = try ImageCoders.shared.decode(response.data, options: firstFrame)
            #expect(frame.pixels.bytes == (try ImageCoders.shared.decode(data, options: firstFrame)).pixels.bytes)
        }
    }

    @Test func aWholeFileRequestNeverJoinsATransferThatStopsEarly() async throws {
        try await LoadingTest.withServer { server in
            let data = try Self.photo()
            server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            server.closeGate("photo")
            let downloader = ImageDownloader(configuration: LoadingTest.configuration())
            let url = server.url("/gate/photo/photo.jpg")
            async let early = downloader.load(try Self.request(downloader, url), progress: nil)
            async let whole = downloader.load(try Self.request(downloader, url, earlyStop: nil), progress: nil)
            await server.waitUntil { $0.count("/gate/photo/photo.jpg") == 2 }
            server.openGate("photo")
            let (prefix, file) = try await (early, whole)
            try? await downloader.shutdown()
            #expect(prefix.isPrefix)
            #expect(!file.isPrefix && file.data == data)
        }
    }

    @Test func aTransferBrokenBeforeTheStopResumesAndReadsTheRest() async throws {
        try await LoadingTest.withServer { server in
            let data = try Self.photo()
            server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            let downloader = ImageDownloader(configuration: LoadingTest.configuration {
                $0.retryPolicy = RetryPolicy(maximumRetries: 2, initialDelay: .milliseconds(1))
            })
            // Reset after 2% of the file, well before the early stop: the retry asks for the rest with a range.
            let url = server.url("/reset-once/photo.jpg?after=\(data.count / 50)")
            let response = try await downloader.load(try Self.request(downloader, url), progress: nil)
            try? await downloader.shutdown()
            #expect(!response.isPrefix)
            #expect(response.data == data)
            let requests = server.log.requests(for: "/reset-once/photo.jpg")
            #expect(requests.count == 2)
            #expect(requests.last?.header("Range") == "bytes=\(data.count / 50)-")
        }
    }
}
