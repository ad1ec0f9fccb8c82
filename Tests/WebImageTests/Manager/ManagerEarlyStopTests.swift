import CoderTestSupport
import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// A thumbnail of a progressive JPEG ends its download once the bytes hold what the thumbnail's decode reads.
@Suite struct ManagerEarlyStopTests {
    static let size = PixelSize(width: 1600, height: 1200)
    /// 1/8 of the photo (200×150) is the DCT scale that covers this box.
    static let box = PixelSize(width: 200, height: 150)

    /// Body bytes the server sent for each request of `path`, once none is in flight.
    static func bytesSent(_ server: TestImageServer, _ path: String) async -> [Int] {
        await server.waitUntil { $0.inFlight == 0 }
        return server.log.requests(for: path).map(\.bodyBytesSent)
    }

    @Test func aThumbnailOfAProgressiveJPEGReadsPartOfIt() async throws {
        try await ManagerHarness.with { h in
            let data = try GrainyPhoto.jpeg(width: Self.size.width, height: Self.size.height, progressive: true)
            h.server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            // The first answer sends a fifth of the file and then waits for the client to leave: the load can
            // only finish if that was enough, and the client must close the connection to end it. (A server that
            // sends everything would see it vanish into the loopback's socket buffers before the client stops.)
            let path = "/stall-once/photo.jpg"
            let url = h.server.url("\(path)?after=\(data.count / 5)")
            let context = ImageContext(thumbnailPixelSize: Self.box)
            let thumbnail = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: context)

            let sent = await Self.bytesSent(h.server, path)
            #expect(sent == [data.count / 5])
            #expect(h.server.log.clientClosedPaths == [path])
            #expect(thumbnail.image.size == Self.box)
            #expect(thumbnail.data == nil)
            let reference = try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: Self.box))
            #expect(PixelComparison.psnr(thumbnail.image.pixels.bytes, reference.pixels.bytes) >= 40)
            // The start of the file is not the file: nothing is kept under the URL; the thumbnail is.
            #expect(await h.cache.containsData(forKey: url.absoluteString) == false)
            #expect(h.cache.image(forKey: h.manager.cacheKey(for: url, context: context)) != nil)

            // The full picture afterwards is a second request that reads every byte.
            let full = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            #expect(await Self.bytesSent(h.server, path) == [data.count / 5, data.count])
            #expect(full.image.size == Self.size)
            #expect(full.data == data)
            let whole = try ImageCoders.shared.decode(data)
            #expect(full.image.pixels.bytes == whole.pixels.bytes)
        }
    }

    @Test func aSoftProgressivePhotosThumbnailReadsItsDCScanAlone() async throws {
        // 4:2:0 whose chroma is predicted from DC: the server sends the DC scan and the next marker (where the
        // scan is seen to end) and then stalls, so the load finishes only if the DC scan was all it read.
        try await ManagerHarness.with { h in
            let data = try Fixtures.data("prefix/progressive-soft.jpg")
            let firstScanEnd = JPEGPrefixScannerTests.scanEnds(data)[0]
            #expect(firstScanEnd < data.count / 4)
            h.server.serve("soft.jpg", data: data, contentType: "image/jpeg")
            let path = "/stall-once/soft.jpg"
            let url = h.server.url("\(path)?after=\(firstScanEnd + 2)")
            let box = PixelSize(width: 100, height: 75)
            let thumbnail = try await h.manager.loadImage(from: url, options: [.waitStoreCache],
                                                          context: ImageContext(thumbnailPixelSize: box))
            #expect(await Self.bytesSent(h.server, path) == [firstScanEnd + 2])
            #expect(thumbnail.image.size == box)
            let reference = try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
            #expect(PixelComparison.psnr(thumbnail.image.pixels.bytes, reference.pixels.bytes) >= 40)
            #expect(await h.cache.containsData(forKey: url.absoluteString) == false)
        }
    }

    @Test func aBaselineJPEGThumbnailStillReadsEverything() async throws {
        try await ManagerHarness.with { h in
            let data = try GrainyPhoto.jpeg(width: Self.size.width, height: Self.size.height, progressive: false)
            h.server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            let url = h.server.url("/files/photo.jpg")
            let thumbnail = try await h.manager.loadImage(from: url, options: [.waitStoreCache],
                                                          context: ImageContext(thumbnailPixelSize: Self.box))
            #expect(thumbnail.image.size == Self.box)
            #expect(await Self.bytesSent(h.server, "/files/photo.jpg") == [data.count])
            #expect(thumbnail.data == data)
            #expect(await h.cache.containsData(forKey: url.absoluteString))
        }
    }

    @Test func aLargerThumbnailReadsEverything() async throws {
        // 400×300 decodes at 1/4, where the first scans are not close enough: the whole file is read and kept.
        try await ManagerHarness.with { h in
            let data = try GrainyPhoto.jpeg(width: Self.size.width, height: Self.size.height, progressive: true)
            h.server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            let url = h.server.url("/files/photo.jpg")
            let context = ImageContext(thumbnailPixelSize: PixelSize(width: 400, height: 300))
            _ = try await h.manager.loadImage(from: url, options: [.waitStoreCache], context: context)
            #expect(await Self.bytesSent(h.server, "/files/photo.jpg") == [data.count])
            #expect(await h.cache.containsData(forKey: url.absoluteString))
        }
    }

    @Test func thumbnailsOfTwoScalesAtOnceAreBothRight() async throws {
        // They share one download, which stops for whichever started it; the 1/4-scale thumbnail reads the whole
        // file when the shared bytes fall short, and equals a decode of the whole file either way.
        try await ManagerHarness.with { h in
            let data = try GrainyPhoto.jpeg(width: Self.size.width, height: Self.size.height, progressive: true)
            h.server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            let url = h.server.url("/files/photo.jpg")
            let larger = PixelSize(width: 400, height: 300)
            async let small = h.manager.loadImage(from: url, options: [.waitStoreCache],
                                                  context: ImageContext(thumbnailPixelSize: Self.box))
            async let large = h.manager.loadImage(from: url, options: [.waitStoreCache],
                                                  context: ImageContext(thumbnailPixelSize: larger))
            let (smallResult, largeResult) = try await (small, large)
            let reference = try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: larger))
            #expect(largeResult.image.size == larger)
            #expect(largeResult.image.pixels.bytes == reference.pixels.bytes)
            let smallReference = try ImageCoders.shared.decode(data, options: DecodeOptions(thumbnailPixelSize: Self.box))
            #expect(PixelComparison.psnr(smallResult.image.pixels.bytes, smallReference.pixels.bytes) >= 40)
            // One shared transfer, and at most one more for the whole file. The origin serves ranges, so the
            // early-stopped transfer may ask for its prefix in more than one request: the requests that start a
            // transfer are those without a range or with one from byte 0.
            let starts = h.server.log.requests(for: "/files/photo.jpg").filter {
                $0.header("Range").map { $0.hasPrefix("bytes=0-") } ?? true
            }
            #expect((1...2).contains(starts.count))
        }
    }

    @Test func aFullLoadAndAThumbnailAtOnceAreBothRight() async throws {
        // The full load must not ride on the transfer that stops early (nor the reverse, which would only waste).
        try await ManagerHarness.with { h in
            let data = try GrainyPhoto.jpeg(width: Self.size.width, height: Self.size.height, progressive: true)
            h.server.serve("photo.jpg", data: data, contentType: "image/jpeg")
            let url = h.server.url("/files/photo.jpg")
            async let thumbnail = h.manager.loadImage(from: url, options: [.waitStoreCache],
                                                      context: ImageContext(thumbnailPixelSize: Self.box))
            async let full = h.manager.loadImage(from: url, options: [.waitStoreCache])
            let (small, large) = try await (thumbnail, full)
            #expect(small.image.size == Self.box)
            #expect(large.image.size == Self.size)
            #expect(large.data == data)
            let sent = await Self.bytesSent(h.server, "/files/photo.jpg")
            #expect(sent.count == 2)
            #expect(sent.contains(data.count))
            #expect(await h.cache.containsData(forKey: url.absoluteString))
        }
    }
}
