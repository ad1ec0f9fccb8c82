import Foundation
import HTTPTypes
import Logging
import NIOCore
import Testing
import WebImage

@testable import WebImageServer

/// What a render costs besides decoding, and what a hit costs at all: sources kept in memory and written to disk
/// only when a second rendering uses them, tags that need no digest of the body, memory hits answered without a
/// task, and an access log written in batches.
@Suite struct ProxyHotPathTests {
    private static func sourceEntry(_ harness: ProxyHarness, _ name: String) -> DiskCache.Entry? {
        DiskCache(folder: harness.folder.appendingPathComponent("sources"))
            .entry(forKey: harness.origin.url("/files/" + name).absoluteString)
    }

    @Test func aSourceGoesToDiskWhenASecondRenderingUsesIt() async throws {
        try await ProxyHarness.with { harness in
            #expect(await harness.get(harness.plainPath(["w:100"], "photo.jpg")).status == 200)
            #expect(Self.sourceEntry(harness, "photo.jpg") == nil)
            // Another size: from memory, not fetched again, and now worth a file.
            #expect(await harness.get(harness.plainPath(["w:50"], "photo.jpg")).status == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            let entry = try #require(Self.sourceEntry(harness, "photo.jpg"))
            #expect(ImageFormat.detect(entry.data) == .jpeg)
            // A restarted proxy renders a third size from that file.
            var configuration = harness.proxy.configuration
            configuration.cacheDirectory = harness.folder
            let restarted = ImageProxy(configuration: configuration)
            let third = await restarted.respond(to: ProxyRequest(method: "GET", path: harness.plainPath(["w:30"], "photo.jpg")))
            #expect(third.status == 200)
            #expect(try ProxyHarness.decode(third).size.width == 30)
            #expect(harness.origin.log.count("/files/photo.jpg") == 1)
            let metrics = String(buffer: await harness.get("/metrics").body)
            #expect(metrics.split(separator: "\n").contains("webimage_serve_source_memory_hits_total 1"))
        }
    }

    @Test func sourceMemoryIsBoundedAndZeroKeepsNothing() async throws {
        try await ProxyHarness.with(configuring: { $0.sourceMemoryBytes = 0 }) { harness in
            #expect(await harness.get(harness.plainPath(["w:100"], "photo.jpg")).status == 200)
            #expect(await harness.get(harness.plainPath(["w:50"], "photo.jpg")).status == 200)
            #expect(harness.origin.log.count("/files/photo.jpg") == 2)
            #expect(Self.sourceEntry(harness, "photo.jpg") == nil)
        }
    }

    @Test func aSourceThatFailsToDecodeIsNotKept() async throws {
        try await ProxyHarness.with { harness in
            #expect(await harness.get(harness.plainPath(["w:100"], "text.txt")).status == 422)
            #expect(await harness.get(harness.plainPath(["w:50"], "text.txt")).status == 422)
            #expect(harness.origin.log.count("/files/text.txt") == 2)
        }
    }

    @Test func tagsNameTheKeyAndTheSourceVersionOrElseTheBytes() {
        let body = Data([1, 2, 3]), other = Data([1, 2, 4])
        let tag = ResultTag.etag(key: "k", sourceLastModified: "Wed, 21 Oct 2015 07:28:00 GMT", body: body)
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 34)
        #expect(tag == ResultTag.etag(key: "k", sourceLastModified: "Wed, 21 Oct 2015 07:28:00 GMT", body: other))
        #expect(tag != ResultTag.etag(key: "k2", sourceLastModified: "Wed, 21 Oct 2015 07:28:00 GMT", body: body))
        #expect(tag != ResultTag.etag(key: "k", sourceLastModified: "Thu, 22 Oct 2015 07:28:00 GMT", body: body))
        // Without a version of the source, the bytes are what identifies the result.
        #expect(ResultTag.etag(key: "k", sourceLastModified: nil, body: body)
                == ResultTag.etag(key: "other", sourceLastModified: nil, body: body))
        #expect(ResultTag.etag(key: "k", sourceLastModified: nil, body: body)
                != ResultTag.etag(key: "k", sourceLastModified: nil, body: other))
    }

    @Test func aResultInMemoryIsAnsweredWithoutWaiting() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["w:100"], "photo.jpg")
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)) == nil)
            let rendered = await harness.get(path)
            #expect(rendered.status == 200)
            // Its first repeat writes it to disk, so it takes the path that may wait; every later one does not.
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)) == nil)
            #expect(await harness.get(path).body == rendered.body)
            let hit = try #require(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)))
            #expect(hit.status == 200 && hit.body == rendered.body && hit.header("ETag") == rendered.header("ETag"))
            #expect(hit.header("Content-Type") == "image/jpeg" && hit.header("Cache-Control") == rendered.header("Cache-Control"))
            let etag = try #require(rendered.header("ETag"))
            let unchanged = harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path, ifNoneMatch: etag))
            #expect(unchanged?.status == 304 && unchanged?.body.readableBytes == 0)
            let head = harness.proxy.immediateResponse(to: ProxyRequest(method: "HEAD", path: path))
            #expect(head?.status == 200 && head?.body.readableBytes == 0
                    && head?.header("Content-Length") == String(rendered.body.readableBytes))
            // Anything else goes the long way: other methods, other results, bad URLs, the endpoints.
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "POST", path: path)) == nil)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: harness.plainPath(["w:99"], "photo.jpg"))) == nil)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: "/_/w:abc/plain/x")) == nil)
            #expect(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: "/health")) == nil)
            let metrics = String(buffer: await harness.get("/metrics").body).split(separator: "\n")
            // The repeat that wrote the result to disk, and the three immediate answers.
            #expect(metrics.contains(#"webimage_serve_result_hits_total{tier="memory"} 4"#))
            #expect(metrics.contains(#"webimage_serve_requests_total{status="304"} 1"#))
        }
    }

    @Test func aHitForTheWireCarriesItsLengthDateAndServer() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["w:100"], "photo.jpg")
            _ = await harness.get(path)
            let rendered = await harness.get(path)
            let before = Date().timeIntervalSince1970.rounded(.down)
            let stamped = try #require(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path),
                                                                       server: "test-server"))
            let again = try #require(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path),
                                                                     server: "test-server"))
            let after = Date().timeIntervalSince1970
            for hit in [stamped, again] {
                #expect(hit.status == 200 && hit.body == rendered.body && hit.header("ETag") == rendered.header("ETag"))
                #expect(hit.header("Content-Length") == String(rendered.body.readableBytes))
                #expect(hit.header("Server") == "test-server")
                let date = try #require(hit.header("Date").flatMap(HTTPDate.parse)).timeIntervalSince1970
                #expect(date >= before && date <= after)
            }
            // Without a server name the answer is the proxy's alone, whatever was kept for the wire.
            let plain = try #require(harness.proxy.immediateResponse(to: ProxyRequest(method: "GET", path: path)))
            #expect(plain.header("Date") == nil && plain.header("Server") == nil)
            #expect(plain.header("Content-Length") == nil)
            #expect(plain.header("ETag") == rendered.header("ETag") && plain.body == rendered.body)
            // A 304 and a HEAD are stamped too.
            let etag = try #require(rendered.header("ETag"))
            let unchanged = try #require(harness.proxy.immediateResponse(
                to: ProxyRequest(method: "GET", path: path, ifNoneMatch: etag), server: "test-server"))
            #expect(unchanged.status == 304 && unchanged.header("Server") == "test-server")
            #expect(unchanged.header("Date") != nil)
            let head = try #require(harness.proxy.immediateResponse(to: ProxyRequest(method: "HEAD", path: path),
                                                                    server: "test-server"))
            #expect(head.body.readableBytes == 0)
            #expect(head.header("Content-Length") == String(rendered.body.readableBytes))
        }
    }

    @Test func aKeptHeadIsTheLatestResultsForItsSecondAndServer() {
        let memo = HitHeadMemo()
        var fields = HTTPFields()
        fields[.eTag] = "\"a\""
        #expect(memo.fields(etag: "\"a\"", bytes: 10, second: 5, server: "s") == nil)
        memo.keep(fields, etag: "\"a\"", bytes: 10, second: 5, server: "s")
        #expect(memo.fields(etag: "\"a\"", bytes: 10, second: 5, server: "s") == fields)
        #expect(memo.fields(etag: "\"b\"", bytes: 10, second: 5, server: "s") == nil)
        #expect(memo.fields(etag: "\"a\"", bytes: 10, second: 6, server: "s") == nil)
        #expect(memo.fields(etag: "\"a\"", bytes: 10, second: 5, server: nil) == nil)
        #expect(memo.fields(etag: "\"a\"", bytes: 11, second: 5, server: "s") == nil)
        memo.keep(HTTPFields(), etag: "\"b\"", bytes: 10, second: 6, server: "s")
        #expect(memo.fields(etag: "\"a\"", bytes: 10, second: 5, server: "s") == nil)
        #expect(memo.fields(etag: "\"b\"", bytes: 10, second: 6, server: "s") == HTTPFields())
    }

    @Test func anAccessLogLineSaysMethodPathStatusBytesAndSeconds() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let output = BufferedLogOutput(descriptor: ends[1], patience: .max)
        let buffered = AccessLog(logger: Logger(label: "test.access") { BufferedLogHandler(label: $0, output: output) })
        let started = ContinuousClock.now - .milliseconds(1_500)
        buffered.record(AccessLog.Request(method: "GET", path: "/a/b", started: started), status: 404, bytes: 12_345)
        output.flush(ifOlderThan: 0)
        let line = Self.read(ends[0])
        let pattern = #/ info test\.access : GET /a/b 404 12345 bytes 1\.5\d{5} seconds\n$/#
        #expect(line.contains(pattern), "\(line)")
        // Through any other handler, the same message.
        let captured = Locked([String]())
        let other = AccessLog(logger: Logger(label: "test.other") { _ in CapturingLogHandler(lines: captured) })
        other.record(AccessLog.Request(method: "HEAD", path: "/c", started: ContinuousClock.now), status: 200, bytes: 0)
        let message = try #require(captured.withLock { $0.first })
        #expect(message.contains(#/^HEAD /c 200 0 bytes 0\.\d{6} seconds$/#), "\(message)")
        close(ends[1])
    }

    @Test func logLinesAreWrittenInBatchesAndWarningsAtOnce() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = fcntl(ends[1], 1031, 1 << 20)  // F_SETPIPE_SZ: room for a whole batch and more
        // Lines wait as long as they must here: only a full batch, a warning or a flush writes them.
        let output = BufferedLogOutput(descriptor: ends[1], patience: .max)
        let logger = Logger(label: "test.access") { BufferedLogHandler(label: $0, output: output) }
        for index in 0..<100 { logger.info("GET /line/\(index) 200") }
        #expect(Self.available(ends[0]) == 0)
        logger.warning("something broke")
        let first = Self.read(ends[0])
        let lines = first.split(separator: "\n")
        #expect(lines.count == 101 && lines[0].hasSuffix("info test.access : GET /line/0 200"))
        #expect(lines[100].hasSuffix("warning test.access : something broke"))
        // A full batch is written without being asked.
        let long = String(repeating: "x", count: 1_000)
        for _ in 0..<70 { logger.info("\(long)") }
        #expect(Self.available(ends[0]) >= 64 * 1024)
        _ = Self.read(ends[0])
        logger.info("last", metadata: ["request": "7"])
        output.flush(ifOlderThan: 0)
        #expect(Self.read(ends[0]).hasSuffix("info test.access : request=7 last\n"))
        close(ends[1])
    }

    @Test func linesLoggedFromManyThreadsAllArriveWhole() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = fcntl(ends[1], 1031, 1 << 20)
        // Batches of a few lines, so the buffer is often empty: each line compares its time with the oldest
        // waiting line's, which a line from another thread may have stamped a moment after this one's.
        let output = BufferedLogOutput(descriptor: ends[1], patience: .max, batchBytes: 100)
        let logger = Logger(label: "test.threads") { BufferedLogHandler(label: $0, output: output) }
        // The pipe is read as it fills, on a thread of its own.
        let received = Locked([UInt8]()), done = DispatchSemaphore(value: 0)
        let readEnd = ends[0]
        DispatchQueue.global().async {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                received.withLock { $0 += chunk.prefix(count) }
            }
            done.signal()
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for line in 0..<1_000 { logger.info("thread \(thread) line \(line)") }
        }
        output.flush(ifOlderThan: 0)
        close(ends[1])
        done.wait()
        let lines = String(decoding: received.withLock { $0 }, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 8_000)
        #expect(Set(lines.map { $0.split(separator: ":").last! }).count == 8_000)
    }

    private static func available(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        _ = ioctl(descriptor, UInt(FIONREAD), &count)
        return Int(count)
    }

    private static func read(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: available(descriptor))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
    }
}

/// Keeps each message logged through it.
private struct CapturingLogHandler: LogHandler {
    let lines: Locked<[String]>
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append("\(event.message)") }
    }
}
