import Foundation
import Testing
import TestImageServer
import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// `webimage serve` answering results it holds in memory from its connection pipeline: thousands in flight all
/// answered, logged and counted, a pipelining client's answers in the order it asked, and connections that only
/// ever ask for hits still timed by the idle timeout (neither cut while busy nor kept open when idle).
@Suite struct ServeHotPathTests {
    /// An origin with the test photo, a server in front of it, and a path rendered and asked for again (so that it
    /// is a memory hit from now on).
    private static func hotServer(_ extra: [String] = []) async throws -> (TestImageServer, ServeProcess, String) {
        let origin = try await TestImageServer.start()
        origin.serve("photo.jpg", data: try ServeLoadTests.photo(), contentType: "image/jpeg")
        let folder = try CommandLineTool.temporaryFolder()
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--allow-loopback-sources", "--cache-dir", folder.path] + extra)
        let hot = "/_/w:40/plain/" + ServeLoadTests.encoded(origin.url("/files/photo.jpg").absoluteString) + "@png"
        #expect(try await server.get(hot).status == 200)
        #expect(try await server.get(hot).status == 200)
        return (origin, server, hot)
    }

    @Test func thousandsOfHitsInFlightAreAllAnsweredLoggedAndCounted() async throws {
        let (origin, server, hot) = try await Self.hotServer()
        defer { Task { await origin.shutdown() } }
        let expected = try await server.get(hot).body
        let total = 5_000, inFlight = 32
        let (statuses, sameBody) = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            var next = 0, statuses: [Int: Int] = [:], same = 0
            func add() {
                next += 1
                group.addTask {
                    let answer = try await server.get(hot)
                    return (answer.status, answer.body == expected)
                }
            }
            for _ in 0..<inFlight { add() }
            while let (status, isSame) = try await group.next() {
                statuses[status, default: 0] += 1
                same += isSame ? 1 : 0
                if next < total { add() }
            }
            return (statuses, same)
        }
        #expect(statuses == [200: total] && sameBody == total)
        #expect(origin.log.count("/files/photo.jpg") == 1)
        let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self).split(separator: "\n")
        #expect(metrics.contains(#"webimage_serve_requests_total{status="200"} \#(total + 3)"#))
        let gauges = try await ServeLoadTests.gauges(of: server)
        #expect(gauges["webimage_serve_renders_in_flight"] == 0 && gauges["webimage_serve_queue_depth"] == 0)
        #expect(await server.terminate() == 0)
        // One access-log line for each request, whoever answered it (written in batches, all out by the exit).
        let lines = server.standardError.split(separator: "\n").filter { $0.contains("GET \(hot) 200 ") }
        #expect(lines.count == total + 3)
    }

    @Test func aPipeliningClientsAnswersKeepTheirOrder() async throws {
        let (origin, server, hot) = try await Self.hotServer()
        defer { Task { await origin.shutdown() } }
        let cold = "/_/w:30/plain/" + ServeLoadTests.encoded(origin.url("/files/photo.jpg").absoluteString) + "@jpg"
        let port = try #require(URL(string: server.address)?.port)
        let client = try ClientSocket(port: port)
        defer { client.close() }
        // A render, a hit, an endpoint, a hit: in one write, before any answer.
        client.send([cold, hot, "/health", hot].map { "GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined())
        let answers = try await client.readAnswers(4)
        #expect(answers.map(\.status) == [200, 200, 200, 200])
        #expect(answers.map { $0.fields["content-type"] ?? "" }
                == ["image/jpeg", "image/png", "text/plain; charset=utf-8", "image/png"])
        #expect(await server.terminate() == 0)
    }

    @Test func aConnectionAskingOnlyForHitsIsTimedByTheIdleTimeout() async throws {
        let (origin, server, hot) = try await Self.hotServer(["--idle-timeout", "3"])
        defer { Task { await origin.shutdown() } }
        let port = try #require(URL(string: server.address)?.port)
        let client = try ClientSocket(port: port)
        defer { client.close() }
        // Busy for more than twice the idle timeout, a hit every tenth of a second (asked from a thread of its own,
        // so that a busy test process does not leave gaps): each answered on the same connection.
        let request = "GET \(hot) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let (sent, answered) = try await onOwnThread {
            var sent = 0, answered = 0
            let end = Date().addingTimeInterval(8)
            while Date() < end {
                client.send(request)
                sent += 1
                guard client.receiveAnswers(1).first?.status == 200 else { break }
                answered += 1
                usleep(100_000)
            }
            return (sent, answered)
        }
        #expect(sent > 10 && answered == sent)
        // Then idle: the server closes it.
        #expect(try await client.waitUntilClosed())
        #expect(await server.terminate() == 0)
    }
}

extension ClientSocket {
    /// Reads `count` answers (status, lower-cased fields, body by `Content-Length`) on a thread of its own; fewer
    /// if the server closes the connection first or stays silent for `eventualityLimit`.
    func readAnswers(_ count: Int) async throws -> [(status: Int, fields: [String: String], body: [UInt8])] {
        try await onOwnThread { receiveAnswers(count) }
    }

    /// ``readAnswers(_:)``, blocking the calling thread.
    func receiveAnswers(_ count: Int) -> [(status: Int, fields: [String: String], body: [UInt8])] {
        let deadline = ContinuousClock.now + eventualityLimit
        var buffer: [UInt8] = [], answers: [(status: Int, fields: [String: String], body: [UInt8])] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while answers.count < count {
            if let answer = Self.parseAnswer(&buffer) {
                answers.append(answer)
                continue
            }
            guard Self.waitReadable(socket, until: deadline) else { break }
            let received = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if received < 0 && errno == EINTR { continue }
            if received <= 0 { break }
            buffer += chunk.prefix(received)
        }
        return answers
    }

    /// Waits until `socket` has something to read (bytes, or its end) and says whether it came before `deadline`.
    /// A signal that interrupts the wait does not end it: the test process gets SIGCHLD whenever a child process
    /// of another test exits, and a blocking `recv` with a timeout is never restarted after one (it fails with
    /// EINTR), which read as a connection the server had left unanswered.
    static func waitReadable(_ socket: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let milliseconds = Int32(clamping: left.components.seconds * 1_000
                                     + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // the following recv reports what is wrong
        }
    }

    /// Whether the server closes the connection (without sending anything) within `eventualityLimit`.
    func waitUntilClosed() async throws -> Bool {
        let socket = self.socket
        return try await onOwnThread {
            let deadline = ContinuousClock.now + eventualityLimit
            var byte: UInt8 = 0
            while Self.waitReadable(socket, until: deadline) {
                let received = recv(socket, &byte, 1, 0)
                if received < 0 && errno == EINTR { continue }
                return received == 0
            }
            return false
        }
    }

    /// The first whole answer in `buffer`, removed from it; `nil` until one has arrived.
    private static func parseAnswer(_ buffer: inout [UInt8]) -> (status: Int, fields: [String: String], body: [UInt8])? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, buffer.count - 4)).first(where: { buffer.count >= 4 && Array(buffer[$0..<$0 + 4]) == separator })
        else { return nil }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(fields["content-length"] ?? "0") ?? 0
        guard buffer.count >= end + 4 + length else { return nil }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        return (status, fields, body)
    }
}
