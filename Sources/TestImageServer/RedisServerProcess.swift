import Foundation

/// A real `redis-server` on a free loopback port, for tests and scripts: started with no persistence, stopped
/// (or killed, to test failures) by its PID. Tests that need it fail with ``RedisServerProcess/Missing`` naming the
/// package to install when the binary is not there: they never skip silently.
public final class RedisServerProcess: Sendable {
    /// Thrown when `redis-server` is not installed.
    public struct Missing: Error, CustomStringConvertible {
        public let description = "redis-server is not installed: run scripts/install-deps (Debian package redis-server)"
    }

    /// Thrown when the server did not come up.
    public struct StartFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port it listens on (kept across ``restart()``).
    public let port: Int
    /// The extra `redis-server` arguments it was started with (`--requirepass`, `--maxmemory` …).
    public let arguments: [String]
    private let process: ServerLock<SpawnedProcess?>
    private let folder: URL

    /// Whether the port speaks TLS only.
    public let usesTLS: Bool

    /// `redis://127.0.0.1:PORT` (`rediss://` with TLS), with `password` when given.
    public func url(password: String? = nil, database: Int = 0) -> String {
        "\(usesTLS ? "rediss" : "redis")://\(password.map { ":\($0)@" } ?? "")127.0.0.1:\(port)/\(database)"
    }

    /// Starts a server with `arguments` added to the defaults (loopback only, no RDB or AOF files). With
    /// `tlsCertificate` and `tlsKey` (PEM files), the port speaks TLS only and clients need no certificate.
    public static func start(arguments: [String] = [], tlsCertificate: String? = nil, tlsKey: String? = nil) throws
        -> RedisServerProcess
    {
        guard let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw Missing() }
        var lastError: (any Error)?
        for _ in 0..<5 {  // another process may take the free port between choosing it and binding it
            var extra = arguments
            if let tlsCertificate, let tlsKey {
                extra += ["--tls-cert-file", tlsCertificate, "--tls-key-file", tlsKey, "--tls-auth-clients", "no"]
            }
            let server = RedisServerProcess(binary: binary, port: try freePort(), arguments: extra,
                                            usesTLS: tlsCertificate != nil)
            do {
                try server.launch()
                return server
            } catch {
                lastError = error
            }
        }
        throw lastError ?? StartFailed(description: "redis-server did not start")
    }

    private let binary: String

    private init(binary: String, port: Int, arguments: [String], usesTLS: Bool) {
        self.binary = binary
        self.port = port
        self.usesTLS = usesTLS
        self.arguments = arguments
        process = ServerLock(nil)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("redis-\(port)-\(UUID().uuidString)")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private func launch() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ports = usesTLS ? ["--port", "0", "--tls-port", String(port)] : ["--port", String(port)]
        let process = try SpawnedProcess(binary, ports + [
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder.path,
            "--logfile", folder.appendingPathComponent("redis.log").path, "--daemonize", "no",
        ] + arguments)
        self.process.withLock { $0 = process }
        // Up when its port answers (`+PONG`, or `-NOAUTH` with a password) and its own log says it listens: the
        // answer alone may come from another test's server that took the free port first (this one then fails to
        // bind and exits), and a test would talk to a server that goes away when that other test ends.
        let log = folder.appendingPathComponent("redis.log")
        for _ in 0..<500 {
            if !process.isRunning { break }
            if Self.answersPing(port: port, expectingReply: !usesTLS),
               (try? String(contentsOf: log, encoding: .utf8))?.contains("Ready to accept connections") == true {
                return
            }
            usleep(10_000)
        }
        stop()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw StartFailed(description: "redis-server on port \(port) did not answer: \(text.suffix(400))")
    }

    /// Kills the server at once (SIGKILL: no shutdown, as a crash) and waits for it to exit.
    public func stop() {
        let running = process.withLock { process in
            defer { process = nil }
            return process
        }
        running?.killAndWait()
    }

    /// Freezes the server (SIGSTOP): connections stay open and nothing is answered, as with a server stuck in a
    /// long command. ``resume()`` lets it answer everything it received meanwhile.
    public func pause() {
        process.withLock { $0 }?.send(SIGSTOP)
    }

    /// Undoes ``pause()`` (SIGCONT).
    public func resume() {
        process.withLock { $0 }?.send(SIGCONT)
    }

    /// Starts it again on the same port, empty.
    public func restart() throws {
        stop()
        try launch()
    }

    /// Whether something accepts connections on `port` and, when `expectingReply`, answers a plain-text PING
    /// the way Redis does (`+PONG`, or an error such as `-NOAUTH`). A TLS port only accepts: it would wait for a
    /// handshake. The reply is awaited for a second at most: when another process took the port first (the server
    /// then exits), that listener may never answer a PING.
    private static func answersPing(port: Int, expectingReply: Bool) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        guard expectingReply else { return true }
        let ping = Array("PING\r\n".utf8)
        guard write(socket, ping, ping.count) == ping.count else { return false }
        var reply = [UInt8](repeating: 0, count: 64)
        return read(socket, &reply, reply.count) > 0 && (reply[0] == UInt8(ascii: "+") || reply[0] == UInt8(ascii: "-"))
    }

    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard bound == 0, named == 0 else { throw StartFailed(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
