import Foundation
import Testing
import TestImageServer
import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// `webimage serve`'s connections as imgproxy bounds them: `--max-clients` (connections over it wait to be
/// accepted), `--graceful-stop-timeout` (a stop does not wait longer for requests in flight) and `--bind unix:PATH`.
@Suite struct ServeConnectionTests {
    static let health = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    /// With two connections held open under `--max-clients 2`, a third connects but stays in the listening
    /// socket's accept queue (the kernel's count, not a guess from silence), while the two held are answered
    /// again; once one closes, the third is accepted and answered. Without the limit the server accepts it at once.
    @Test func aConnectionOverTheLimitWaitsUntilOneCloses() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(["--bind", "127.0.0.1:0", "--insecure", "--cache-dir", folder.path,
                                                   "--max-clients", "2", "--idle-timeout", "3600"])
        let port = try #require(URL(string: server.address)?.port)
        let first = try ClientSocket(port: port), second = try ClientSocket(port: port)
        first.send(Self.health)
        #expect(try await first.readAnswers(1).map(\.status) == [200])
        second.send(Self.health)
        #expect(try await second.readAnswers(1).map(\.status) == [200])
        #expect(Self.acceptQueue(port: port) == 0)
        let third = try ClientSocket(port: port)
        third.send(Self.health)
        #expect(Self.acceptQueue(port: port) == 1)
        // Sent after the third's request and answered: the server is running, and still leaves the third waiting.
        for held in [first, second] {
            held.send(Self.health)
            #expect(try await held.readAnswers(1).map(\.status) == [200])
        }
        #expect(Self.acceptQueue(port: port) == 1)
        #expect(!third.hasBytesToRead())
        first.close()
        #expect(try await third.readAnswers(1).map(\.status) == [200])
        second.close()
        third.close()
        #expect(await server.terminate() == 0)
    }

    /// Two thousand short connections from sixteen clients at once under `--max-clients 4`: every request is
    /// answered, and afterwards all four slots are free again (four connections held open at once are answered).
    @Test func manyShortConnectionsUnderASmallLimitAreAllAnsweredAndFreeTheirSlots() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(["--bind", "127.0.0.1:0", "--insecure", "--cache-dir", folder.path,
                                                   "--max-clients", "4", "--idle-timeout", "3600"])
        let port = try #require(URL(string: server.address)?.port)
        let clients = 16, connectionsEach = 125
        let start = ContinuousClock.now
        // Each connection that was not answered 200, told: which client and round, when, and what the socket said.
        let unanswered = try await withThrowingTaskGroup(of: [String].self) { group in
            for client in 0..<clients {
                group.addTask {
                    try await onOwnThread {
                        var unanswered: [String] = []
                        for round in 0..<connectionsEach {
                            let connection = try ClientSocket(port: port)
                            connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                            let sent = ContinuousClock.now
                            let answers = connection.receiveAnswers(1)
                            let failure = errno
                            if answers.first?.status != 200 {
                                unanswered.append("client \(client) round \(round) at \(sent - start), after "
                                    + "\(ContinuousClock.now - sent): status \(answers.first?.status ?? 0), errno \(failure)")
                            }
                            connection.close()
                        }
                        return unanswered
                    }
                }
            }
            return try await group.reduce([], +)
        }
        #expect(unanswered.isEmpty, "\(unanswered.count) unanswered: \(unanswered.prefix(16))")
        let held = try (0..<4).map { _ in try ClientSocket(port: port) }
        for client in held { client.send(Self.health) }
        for client in held { #expect(try await client.readAnswers(1).map(\.status) == [200]) }
        for client in held { client.close() }
        #expect(await server.terminate() == 0)
    }

    /// A request still in flight when the graceful stop timeout has passed does not keep the process: it exits
    /// (status 0) with the request unanswered.
    @Test func theStopWaitsNoLongerThanTheGracefulStopTimeout() async throws {
        let origin = try await TestImageServer.start()
        let pixels = try PixelBuffer(width: 20, height: 20, filledWith: RGBA(10, 200, 30))
        origin.serve("a.png", data: try ImageCoders.shared.encode(Image(pixels: pixels), as: .png),
                     contentType: "image/png")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--insecure", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--download-timeout", "600", "--request-timeout", "600", "--graceful-stop-timeout", "1"])
        origin.closeGate("held")
        let source = origin.url("/gate/held/a.png").absoluteString
        let inFlight = Task { try? await server.get("/_/w:10/plain/" + source).status }
        #expect(await origin.waitUntil { $0.count("/gate/held/a.png") == 1 })
        server.process.send(SIGTERM)
        // Without the timeout the process would wait for the origin (600 s): this wait would fail.
        await expectEventually { !server.process.isRunning }
        #expect(server.process.exitStatus == 0)
        origin.openGate("held")
        #expect(await inFlight.value != 200)
        await origin.shutdown()
    }

    /// `--bind unix:PATH` serves HTTP on a Unix socket; a socket file left at the path by an earlier run is
    /// replaced, and any other file there stops the start without being touched. imgproxy's
    /// `IMGPROXY_NETWORK=unix` with `IMGPROXY_BIND=PATH` does the same.
    @Test func servesOnAUnixSocketReplacingOnlyAStaleSocketFile() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("serve.sock").path
        try Self.leaveStaleSocket(at: path)
        let server = try await ServeProcess.start(["--bind", "unix:" + path, "--insecure", "--cache-dir", folder.path])
        #expect(server.address == "unix:" + path)
        let client = try ClientSocket(unixPath: path)
        client.send(Self.health)
        let answers = try await client.readAnswers(1)
        #expect(answers.map(\.status) == [200])
        client.close()
        #expect(await server.terminate() == 0)

        let imgproxyPath = folder.appendingPathComponent("imgproxy.sock").path
        let imgproxy = try await ServeProcess.start(["--insecure", "--cache-dir", folder.path],
                                                    environment: ["IMGPROXY_NETWORK": "unix",
                                                                  "IMGPROXY_BIND": imgproxyPath])
        let imgproxyClient = try ClientSocket(unixPath: imgproxyPath)
        imgproxyClient.send(Self.health)
        #expect(try await imgproxyClient.readAnswers(1).map(\.status) == [200])
        imgproxyClient.close()
        #expect(await imgproxy.terminate() == 0)

        let file = folder.appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: file)
        let refused = try await CommandLineTool.run(["serve", "--insecure", "--cache-dir", folder.path,
                                                     "--bind", "unix:" + file.path])
        #expect(refused.status != 0)
        #expect(try Data(contentsOf: file) == Data("keep me".utf8))
    }

    /// How many connections wait in the accept queue of the socket listening on 127.0.0.1:`port` (Linux shows
    /// it as a listening socket's receive queue in `/proc/net/tcp`); `nil` if there is no such socket.
    static func acceptQueue(port: Int) -> Int? {
        // Read to its end through a handle: `String(contentsOfFile:)` stops after the first 4 KB of a /proc file (it
        // sizes its read from the file's size, which /proc gives as 0), about 26 sockets, and a busy test process
        // has many more, so the listening socket's line was missed now and then.
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp"),
              let bytes = try? handle.readToEnd() else { return nil }
        try? handle.close()
        let table = String(decoding: bytes, as: UTF8.self)
        let local = "0100007F:" + String(format: "%04X", port)
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            // sl, local address, remote address, state (0A: listening), tx_queue:rx_queue.
            guard fields.count > 4, fields[1] == local, fields[3] == "0A",
                  let queue = fields[4].split(separator: ":").last else { continue }
            return Int(queue, radix: 16)
        }
        return nil
    }

    /// A socket file as a killed server leaves it: bound, closed, never unlinked.
    static func leaveStaleSocket(at path: String) throws {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(socket) }
        var address = sockaddr_un(unixPath: path)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard bound else { throw ServeProcessError("cannot bind a socket at \(path)") }
    }
}

extension ClientSocket {
    /// A connection to the Unix socket at `unixPath`.
    init(unixPath: String) throws {
        socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un(unixPath: unixPath)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard connected else {
            Glibc.close(socket)
            throw ServeProcessError("cannot connect to \(unixPath)")
        }
    }

    /// Whether an answer (or a close) has arrived and waits to be read, looked at once, without waiting.
    func hasBytesToRead() -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}

extension sockaddr_un {
    /// The address of the Unix socket at `path` (which must fit `sun_path`, 107 bytes).
    init(unixPath path: String) {
        self.init()
        sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
    }
}
