import Foundation
import Testing
import TestImageServer
import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// `webimage serve` under traffic, as a user runs it: thousands of distinct renders in flight answered to the
/// last one with nothing left behind, connections that never finish their request closed, and origins that
/// never answer holding no render worker. Counts and statuses only, never timing.
@Suite struct ServeLoadTests {
    /// The proxy used to wedge after a few thousand distinct renders: a transfer slot taken for a download that
    /// had already finished was never given back, and once all were gone every request waited for ever.
    @Test func thousandsOfDistinctRendersAreAllAnsweredAndEveryGaugeReturnsToZero() async throws {
        let origin = try await TestImageServer.start()
        defer { Task { await origin.shutdown() } }
        origin.serve("photo.jpg", data: try Self.photo(), contentType: "image/jpeg")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--workers", "2", "--queue", "4096", "--download-timeout", "600", "--request-timeout", "600"])
        let total = 2_000, inFlight = 24
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0, statuses: [Int: Int] = [:]
            func add() {
                let source = origin.url("/files/photo.jpg").absoluteString + "?n=\(next)"
                next += 1
                group.addTask { try await server.get("/_/w:40/plain/" + Self.encoded(source) + "@png").status }
            }
            for _ in 0..<inFlight { add() }
            while let status = try await group.next() {
                statuses[status, default: 0] += 1
                if next < total { add() }
            }
            return statuses
        }
        #expect(statuses == [200: total])
        #expect(origin.log.count("/files/photo.jpg") == total)
        let gauges = try await Self.gauges(of: server)
        let names = ["webimage_serve_queue_depth", "webimage_serve_renders_in_flight", "webimage_serve_render_slots_busy",
                     "webimage_serve_download_slots_busy", "webimage_serve_downloads_queued"]
        let nonZero = names.filter { gauges[$0] != 0.0 }
        #expect(nonZero.isEmpty, "gauges not back to zero (or missing): \(nonZero)")
        #expect(await server.terminate() == 0)
    }

    /// Downloads hold no render worker: with one worker and two sources that never answer, another render is
    /// still made and answered while they hang.
    @Test func originsThatNeverAnswerDoNotHoldTheRenderWorker() async throws {
        let origin = try await TestImageServer.start()
        defer { Task { await origin.shutdown() } }
        origin.serve("photo.jpg", data: try Self.photo(), contentType: "image/jpeg")
        origin.closeGate("never")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--workers", "1", "--download-timeout", "600", "--request-timeout", "600"])
        let hanging = (0..<2).map { index in
            Task {
                let source = origin.url("/gate/never/photo.jpg").absoluteString + "?n=\(index)"
                return try await server.get("/_/w:40/plain/" + Self.encoded(source) + "@png").status
            }
        }
        await origin.expectEventually { $0.count("/gate/never/photo.jpg") == 2 }
        let unrelated = try await server.get("/_/w:40/plain/" + Self.encoded(origin.url("/files/photo.jpg").absoluteString))
        #expect(unrelated.status == 200)
        #expect(origin.log.count("/gate/never/photo.jpg") == 2)  // still hanging, both of them
        origin.openGate("never")
        for request in hanging { #expect(try await request.value == 200) }
        #expect(await server.terminate() == 0)
    }

    /// Clients that send half a request head and stop are cut off by the header timeout, and while they hang the
    /// server still answers everyone else.
    @Test func halfSentRequestsAreClosedByTheHeaderTimeout() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--cache-dir", folder.path, "--header-timeout", "1", "--idle-timeout", "3600"])
        let port = try #require(URL(string: server.address)?.port)
        let sockets = try (0..<300).map { _ in try HalfSentRequest(port: port) }
        #expect(try await server.get("/health").status == 200)
        let closed = await HalfSentRequest.waitUntilClosed(sockets)
        #expect(closed == sockets.count)
        #expect(try await server.get("/health").status == 200)
        #expect(await server.terminate() == 0)
    }

    /// The header timeout runs per request on a kept-alive connection: heads that arrive whole are answered however
    /// long the connection has been open, and a later head that stops halfway is cut off.
    @Test func theHeaderTimeoutStartsAgainWithEachRequestOfAConnection() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--cache-dir", folder.path, "--header-timeout", "1",
             "--idle-timeout", "3600"])
        let port = try #require(URL(string: server.address)?.port)
        let client = try ClientSocket(port: port)
        defer { client.close() }
        // Five whole requests 0.6 s apart: three seconds of one connection, every head on time.
        let statuses = try await onOwnThread {
            (0..<5).map { index -> Int in
                if index > 0 { usleep(600_000) }
                client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return client.receiveAnswers(1).first?.status ?? 0
            }
        }
        #expect(statuses == [200, 200, 200, 200, 200])
        client.send("GET /health HTTP/1.1\r\nHost: 127.0")
        #expect(try await client.waitUntilClosed())
        #expect(await server.terminate() == 0)
    }

    /// A request whose client disconnects while its render waits in line leaves the line and is never rendered.
    /// The line is the decode helpers' (a render waits there for a helper, holding no render worker): the only
    /// helper is held by a render whose helper is stopped (SIGSTOP), so the line is deterministic: the waiting
    /// request is seen queued, its client closes the connection, and once the helper runs again only the first
    /// render has decoded anything.
    @Test func aQueuedRequestWhoseClientDisconnectsIsNeverRendered() async throws {
        let origin = try await TestImageServer.start()
        defer { Task { await origin.shutdown() } }
        origin.serve("photo.heic", data: try IsolationFixtures.heic("photo"), contentType: "image/heic")
        origin.serve("photo.jpg", data: try Self.photo(), contentType: "image/jpeg")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--workers", "1", "--decode-helpers", "1", "--decode-timeout", "600", "--request-timeout", "600"])
        let helpers = ServeDecoderIsolationTests.helpers(of: server.process.pid)
        try #require(helpers.count == 1)
        #expect(kill(helpers[0], SIGSTOP) == 0)
        let holding = Task {
            try await server.get("/_/w:40/plain/" + Self.encoded(origin.url("/files/photo.heic").absoluteString) + "@png")
        }
        #expect(try await Self.waitForGauge("webimage_serve_helper_decodes_busy", 1, on: server))
        // The render workers are free meanwhile: a JPEG is answered.
        #expect(try await server.get("/_/w:40/plain/" + Self.encoded(origin.url("/files/photo.jpg").absoluteString))
            .status == 200)
        let port = try #require(URL(string: server.address)?.port)
        let leaving = try ClientSocket(port: port)
        leaving.send("GET /_/w:30/plain/" + Self.encoded(origin.url("/files/photo.heic").absoluteString)
                     + "@png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try await Self.waitForGauge("webimage_serve_helper_decodes_queued", 1, on: server))
        leaving.close()
        #expect(try await Self.waitForGauge("webimage_serve_helper_decodes_queued", 0, on: server))
        #expect(try await Self.waitForGauge("webimage_serve_renders_in_flight", 1, on: server))
        #expect(kill(helpers[0], SIGCONT) == 0)
        #expect(try await holding.value.status == 200)
        let gauges = try await Self.gauges(of: server)
        // The JPEG and the first HEIC: the HEIC whose client left never decoded.
        #expect(gauges["webimage_serve_decode_seconds_count"] == 2)
        #expect(gauges["webimage_serve_renders_in_flight"] == 0 && gauges["webimage_serve_render_slots_busy"] == 0)
        #expect(gauges["webimage_serve_helper_decodes_busy"] == 0)
        #expect(gauges["webimage_serve_helper_decodes_queued"] == 0)
        #expect(await server.terminate() == 0)
    }

    /// Waits until the gauge `name` reads `value` (`false` if it never does within a minute of looking).
    static func waitForGauge(_ name: String, _ value: Double, on server: ServeProcess) async throws -> Bool {
        for _ in 0..<6_000 {
            if try await gauges(of: server)[name] == value { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    static func encoded(_ source: String) -> String {
        source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    static func photo() throws -> Data {
        let pixels = try PixelBuffer(width: 160, height: 120) { bytes in
            for index in stride(from: 0, to: bytes.count, by: 4) {
                bytes[index] = UInt8(index / 4 % 160)
                bytes[index + 1] = UInt8(index / 640 % 256)
                bytes[index + 2] = 90
                bytes[index + 3] = 255
            }
        }
        return try ImageCoders.shared.encode(Image(pixels: pixels), as: .jpeg)
    }

    /// The unlabelled gauges of `/metrics`, by name.
    static func gauges(of server: ServeProcess) async throws -> [String: Double] {
        let text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        var gauges: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.contains("{") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { gauges[String(parts[0])] = value }
        }
        return gauges
    }
}

/// A client connection on a plain socket, for requests whose client goes away and requests sent in one write.
struct ClientSocket: Sendable {
    let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // A signal (SIGCHLD, as other tests' child processes exit) can interrupt the connect; the connection then
        // goes on being made, and its outcome is read once the socket is writable.
        guard result == 0 || (errno == EINTR && Self.finishesConnecting(socket)) else {
            throw ServeProcessError("cannot connect to 127.0.0.1:\(port)")
        }
    }

    /// Sends `text`; to a connection the server has closed, nothing (no SIGPIPE: a test then fails, not the runner).
    func send(_ text: String) {
        _ = text.withCString { Glibc.send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    func close() { _ = Glibc.close(socket) }

    private static func finishesConnecting(_ socket: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        while poll(&entry, 1, -1) < 0 { guard errno == EINTR else { return false } }
        var failure: Int32 = 0, length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
    }
}

/// A connection that sent half a request head and nothing more.
private struct HalfSentRequest: Sendable {
    let socket: Int32

    init(port: Int) throws {
        let client = try ClientSocket(port: port)
        client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        socket = client.socket
    }

    /// Waits (on a thread of its own) until the server has closed each connection or `eventualityLimit` passes;
    /// returns how many it closed. Every socket is closed on return.
    static func waitUntilClosed(_ requests: [HalfSentRequest]) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                var open = Set(requests.map(\.socket)), closed = 0
                let deadline = Date().addingTimeInterval(Double(eventualityLimit.components.seconds))
                while !open.isEmpty && Date() < deadline {
                    var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                    guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
                    for entry in polls where entry.revents != 0 {
                        var byte: UInt8 = 0
                        if recv(entry.fd, &byte, 1, 0) <= 0 {
                            open.remove(entry.fd)
                            closed += 1
                        }
                    }
                }
                for request in requests { close(request.socket) }
                continuation.resume(returning: closed)
            }.start()
        }
    }
}
