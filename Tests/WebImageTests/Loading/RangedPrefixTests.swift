import CoderTestSupport
import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// An early stop from an origin known to serve byte ranges asks for the first bytes, then for more while the
/// decode needs them; every range is read to its end and the connection kept.
@Suite struct RangedPrefixTests {
    /// A progressive JPEG whose DC scans (what an eighth-size decode reads, about 90 KB) pass the first range.
    /// Made by each test that needs it: kept in a static, TurboJPEG's buffer behind it is reported as leaked by
    /// LeakSanitizer at exit.
    static func progressive() throws -> Data {
        try GrainyPhoto.jpeg(width: 3600, height: 2700, progressive: true)
    }
    static var eighth: EarlyStop {
        EarlyStop(decoding: DecodeOptions(thumbnailPixelSize: PixelSize(width: 450, height: 338)))
    }

    static func request(_ url: URL, earlyStop: EarlyStop?) -> ImageLoadRequest {
        var request = LoadingTest.request(url)
        request.earlyStop = earlyStop
        return request
    }

    /// Loads `teach` plainly (the origin's answer says it serves ranges), then `url` with `earlyStop`.
    static func load(_ loader: HTTPImageLoader, teach: URL, _ url: URL, earlyStop: EarlyStop,
                     progress: ImageLoadProgressHandler? = nil) async throws -> ImageLoadResponse {
        _ = try await loader.load(request(teach, earlyStop: nil), progress: nil)
        return try await loader.load(request(url, earlyStop: earlyStop), progress: progress)
    }

    @Test func aHeaderIsReadFromTheFirstRangeOnAKeptConnection() async throws {
        try await LoadingTest.withServer { server in
            let photo = try GrainyPhoto.jpeg(width: 1600, height: 1200, progressive: false)
            #expect(photo.count > 4 * RangedPrefix.firstLength)
            server.serve("teach.png", data: LoadingTest.bytes(1_000, seed: 7), contentType: "image/png")
            server.serve("photo.jpg", data: photo, contentType: "image/jpeg")
            try await LoadingTest.withHTTPLoader { loader in
                let response = try await Self.load(loader, teach: server.url("/files/teach.png"),
                                                   server.url("/files/photo.jpg"), earlyStop: .header)
                #expect(response.isPrefix)
                #expect(response.data.count <= RangedPrefix.firstLength)
                #expect(photo.starts(with: response.data.prefix(response.data.count - 2)))
                // The answer reads as the whole file's: status 200, its size, no range fields.
                #expect(response.metadata.statusCode == 200)
                #expect(response.metadata.expectedContentLength == Int64(photo.count))
                #expect(response.metadata.headers["Content-Range"] == nil)
            }
            await server.waitUntil { $0.inFlight == 0 }
            let requests = server.log.requests(for: "/files/photo.jpg")
            #expect(requests.map { $0.header("Range") } == ["bytes=0-65535"])
            #expect(requests.map(\.bodyBytesSent) == [RangedPrefix.firstLength])
            #expect(Set(server.log.requests.map(\.connection)) == [0])
            #expect(server.log.clientClosedPaths.isEmpty)
        }
    }

    @Test func aProgressiveJPEGsScansAreAskedForRangeByRangeUntilEnough() async throws {
        try await LoadingTest.withServer { server in
            let photo = try Self.progressive()
            server.serve("teach.png", data: LoadingTest.bytes(1_000, seed: 8), contentType: "image/png")
            server.serve("photo.jpg", data: photo, contentType: "image/jpeg")
            let rule = Self.eighth
            var whole = LoadingTest.request(server.url("/files/photo.jpg"))
            whole.earlyStop = rule
            let plain = try await LoadingTest.withHTTPLoader { try await $0.load(whole, progress: nil) }
            #expect(plain.isPrefix)
            try await LoadingTest.withHTTPLoader { loader in
                let ranged = try await Self.load(loader, teach: server.url("/files/teach.png"),
                                                 server.url("/files/photo.jpg"), earlyStop: rule)
                // The same prefix as reading the body and stopping, from ranges of 64 KB, then twice what is held.
                #expect(ranged.isPrefix)
                #expect(ranged.data == plain.data)
                let ranges = server.log.requests(for: "/files/photo.jpg").compactMap { $0.header("Range") }
                #expect(ranges.count >= 2)
                var held = 0
                for range in ranges {
                    let end = held == 0 ? RangedPrefix.firstLength - 1 : min(photo.count, held * 3) - 1
                    #expect(range == "bytes=\(held)-\(end)")
                    held = end + 1
                }
                #expect(held >= plain.data.count - 2 && held < photo.count)
                let validators = server.log.requests(for: "/files/photo.jpg").compactMap { $0.header("If-Range") }
                #expect(validators.count == ranges.count - 1)
            }
            await server.waitUntil { $0.inFlight == 0 }
            // Only the plain read closed its connection; every range was read to its end.
            #expect(server.log.clientClosedPaths.allSatisfy { $0 == "/files/photo.jpg" })
            #expect(server.log.clientClosedPaths.count <= 1)
        }
    }

    @Test func aFileTheEarlyStopReadsWholeIsCompletedWithOneMoreRange() async throws {
        try await LoadingTest.withServer { server in
            let png = try Fixtures.data("png/rgb8.png")
            var large = png
            large.append(LoadingTest.bytes(200_000, seed: 9))  // bytes after IEND: read, not decoded
            server.serve("teach.png", data: LoadingTest.bytes(1_000, seed: 10), contentType: "image/png")
            server.serve("large.png", data: large, contentType: "image/png")
            try await LoadingTest.withHTTPLoader { loader in
                let response = try await Self.load(loader, teach: server.url("/files/teach.png"),
                                                   server.url("/files/large.png"), earlyStop: .header)
                #expect(!response.isPrefix)
                #expect(response.data == large)
            }
            let ranges = server.log.requests(for: "/files/large.png").compactMap { $0.header("Range") }
            #expect(ranges == ["bytes=0-65535", "bytes=65536-\(large.count - 1)"])
        }
    }

    @Test func anOriginWhoseEarlyStopsReadWholeFilesIsFetchedPlainlyUntilOneStopsEarly() async throws {
        try await LoadingTest.withServer { server in
            var large = try Fixtures.data("png/rgb8.png")
            large.append(LoadingTest.bytes(200_000, seed: 12))  // bytes after IEND: read, not decoded
            let photo = try Self.progressive()
            server.serve("teach.png", data: LoadingTest.bytes(1_000, seed: 13), contentType: "image/png")
            server.serve("large.png", data: large, contentType: "image/png")
            server.serve("photo.jpg", data: photo, contentType: "image/jpeg")
            try await LoadingTest.withHTTPLoader { loader in
                _ = try await loader.load(Self.request(server.url("/files/teach.png"), earlyStop: nil), progress: nil)
                // Two early stops that read the whole file, by ranges (two requests each); the third is one plain
                // request.
                for _ in 0..<(OriginRanges.wholeReadsBeforePlainFetches + 1) {
                    let response = try await loader.load(Self.request(server.url("/files/large.png"), earlyStop: .header),
                                                         progress: nil)
                    #expect(response.data == large && !response.isPrefix)
                }
                // Plain, and it stops early (closing its connection): the next early stop is by ranges again.
                for _ in 0..<2 {
                    let response = try await loader.load(Self.request(server.url("/files/photo.jpg"), earlyStop: Self.eighth),
                                                         progress: nil)
                    #expect(response.isPrefix && photo.starts(with: response.data.prefix(response.data.count - 2)))
                }
            }
            await server.waitUntil { $0.inFlight == 0 }
            let whole = "bytes=65536-\(large.count - 1)"
            #expect(server.log.requests(for: "/files/large.png").map { $0.header("Range") }
                == ["bytes=0-65535", whole, "bytes=0-65535", whole, nil])
            let photoRanges = server.log.requests(for: "/files/photo.jpg").map { $0.header("Range") }
            #expect(photoRanges.first == .some(nil))
            #expect(photoRanges.dropFirst().first == "bytes=0-65535")
            // Every range was read to its end on the one connection; the plain fetch that stopped early closed it.
            let connections = server.log.requests.map(\.connection)
            #expect(Set(connections.dropLast(photoRanges.count - 1)).count == 1)
            #expect(connections.last != connections.first)
        }
    }

    @Test func aFileThatChangesBetweenRangesIsReadWholeInItsNewVersion() async throws {
        try await LoadingTest.withServer { server in
            let first = try Self.progressive()
            let second = try GrainyPhoto.jpeg(width: 1200, height: 900, progressive: true)
            server.serve("teach.png", data: LoadingTest.bytes(1_000, seed: 11), contentType: "image/png")
            server.serve("photo.jpg", data: first, contentType: "image/jpeg", etag: "\"v1\"")
            let rule = Self.eighth
            let replaced = Locked(false)
            try await LoadingTest.withHTTPLoader { loader in
                // Replaced once the first range has arrived: the next range's If-Range no longer matches.
                let response = try await Self.load(loader, teach: server.url("/files/teach.png"),
                                                   server.url("/files/photo.jpg"), earlyStop: rule) { progress in
                    guard progress.receivedBytes >= Int64(RangedPrefix.firstLength) else { return }
                    let already = replaced.withLock { done in
                        defer { done = true }
                        return done
                    }
                    guard !already else { return }
                    server.serve("photo.jpg", data: second, contentType: "image/jpeg", etag: "\"v2\"")
                }
                #expect(second.starts(with: response.data.prefix(response.data.count - 2)))
                #expect(response.metadata.etag == "\"v2\"")
                #expect(response.metadata.statusCode == 200)
            }
            let asked = server.log.requests(for: "/files/photo.jpg").map { ($0.header("Range"), $0.header("If-Range")) }
            #expect(asked.count == 2)
            #expect(asked.first?.0 == "bytes=0-65535")
            #expect(asked.last?.1 == "\"v1\"")
        }
    }

    @Test func anOriginNotKnownToServeRangesIsReadPlainly() async throws {
        try await LoadingTest.withServer { server in
            let photo = try GrainyPhoto.jpeg(width: 1600, height: 1200, progressive: false)
            server.serve("photo.jpg", data: photo, contentType: "image/jpeg")
            try await LoadingTest.withHTTPLoader { loader in
                // The first answer from the origin is the lesson: this load is plain, and stops by closing.
                let response = try await loader.load(Self.request(server.url("/files/photo.jpg"), earlyStop: .header),
                                                     progress: nil)
                #expect(response.isPrefix)
                // A caller's own range (a resumed transfer) is never replaced by ranges of the prefix.
                var resumed = Self.request(server.url("/files/photo.jpg"), earlyStop: .header)
                resumed.headers["Range"] = "bytes=1000-"
                let rest = try await loader.load(resumed, progress: nil)
                #expect(rest.data == photo.suffix(from: 1000))
            }
            let asked = server.log.requests(for: "/files/photo.jpg").map { $0.header("Range") }
            #expect(asked == [nil, "bytes=1000-"])
        }
    }
}
