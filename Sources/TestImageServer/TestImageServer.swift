import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on a loopback address (port chosen by the system) that serves given bytes and
/// misbehaves on purpose: slow, stalled, truncated, reset, redirected, 304, 4xx/5xx, wrong type, gzip, huge,
/// basic auth, ranges. It logs every request and lets callers wait for what it saw (never for time).
///
/// Routes (`NAME` is a file added with ``serve(_:data:contentType:etag:lastModified:)``); each request's body bytes
/// handed to the connection are counted (``RecordedRequest/bodyBytesSent``):
/// - `/files/NAME` — the bytes, with `ETag`, `Last-Modified`, `If-None-Match` → 304, `Range` / `If-Range` → 206
/// - `/slow/NAME?chunk=N&delayMs=M` — in N-byte pieces with M ms between them
/// - `/stall/NAME?after=N` — head and N bytes, then nothing until the client leaves; `/stall-once/NAME?after=N`
///   does that only the first time, then serves the file as `/files/NAME` does
/// - `/short/NAME` — the full `Content-Length`, half the body, then a clean close; `/short-once/NAME` does that
///   only the first time
/// - `/reset/NAME?after=N` — N bytes, then a TCP reset; `/reset-once/NAME?after=N` resets only the first time
/// - `/unsized-reset-once/NAME?after=N` — the first time a chunked body (no length) cut by a reset after N
///   bytes, then the file as `/files/NAME` serves it (ranges included)
/// - `/redirect/K/NAME` — K redirects, then `/files/NAME`; `/redirect-to?url=U` — one redirect to U;
///   `/loop/a` ⇄ `/loop/b`
/// - `/status/CODE` — that status with a short text body; `/empty` — 200 with no body
/// - `/flaky/NAME?failures=K&status=S` — status S (default 503) for the first K requests, then the bytes
/// - `/wrong-type/NAME` — the bytes as `text/html`; `/gzip/NAME` — gzip-encoded when the client accepts it
/// - `/huge?bytes=N[&chunked=1]` — N bytes (with Content-Length, or chunked), as fast as the client reads
/// - `/endless-headers?delayMs=M&lineBytes=N` — a status line, then N-byte header lines M ms apart, never ending
/// - `/endless-body?delayMs=M&chunk=N` — a chunked body of N-byte chunks M ms apart, never ending
/// - `/auth/NAME?user=U&password=P` — 401 unless basic auth matches
/// - `/gate/G/NAME` — waits until gate G is opened, then the bytes
/// - `/cookie/NAME?set=K=V` — the bytes with `Set-Cookie: K=V`
/// - anything else — 404
public final class TestImageServer: Sendable {
    /// The address the server listens on.
    public let host: String
    /// The port the system gave it.
    public let port: Int
    /// `https` when the server was started with a certificate, else `http`.
    public let scheme: String

    let state = ServerLock(ServerState())
    let files = ServerLock<[String: ServedFile]>([:])
    let gates = Gates()
    private let channels = ServerLock<[Int: any Channel]>([:])
    private let nextConnection = Atomic<Int>(0)
    private let serverChannel: any Channel
    private let acceptTask = ServerLock<Task<Void, Never>?>(nil)

    private let incoming: AsyncStream<HTTPConnection>.Continuation

    private init(host: String, port: Int, scheme: String, serverChannel: any Channel,
                 incoming: AsyncStream<HTTPConnection>.Continuation) {
        self.host = host
        self.port = port
        self.scheme = scheme
        self.serverChannel = serverChannel
        self.incoming = incoming
    }

    /// A certificate chain and private key in PEM, for serving HTTPS.
    public struct TLSIdentity: Sendable {
        /// The certificate chain, leaf first, PEM-encoded.
        public var certificateChainPEM: [UInt8]
        /// The private key, PEM-encoded.
        public var privateKeyPEM: [UInt8]

        /// Creates an identity from PEM bytes.
        public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
        }
    }

    /// Starts a server on `host` (default 127.0.0.1) and `port` (default 0: a free one). With `tls` it speaks
    /// HTTPS, and with `http2` as well it offers HTTP/2 through ALPN (clients that do not ask for it get
    /// HTTP/1.1). A fixed port lets two servers share one port on two loopback addresses (127.0.0.1, 127.0.0.2),
    /// which is what a name that resolves to either looks like.
    public static func start(host: String = "127.0.0.1", port: Int = 0, tls: TLSIdentity? = nil,
                             http2: Bool = false) async throws -> TestImageServer {
        let sslContext = try tls.map { try makeSSLContext($0, offeringHTTP2: http2) }
        let (connections, incoming) = AsyncStream.makeStream(of: HTTPConnection.self)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                configurePipeline(channel, sslContext: sslContext, http2: http2, incoming: incoming)
            }
            .bind(host: host, port: port)
            .get()
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw TestImageServerError.noPort
        }
        let server = TestImageServer(host: host, port: port, scheme: tls == nil ? "http" : "https",
                                     serverChannel: listener, incoming: incoming)
        // Connections are handled on the server's own threads (see ServerThreadExecutor for why).
        let task = Task<Void, Never>(executorPreference: ServerThreadExecutor.shared) {
            await withDiscardingTaskGroup { group in
                for await connection in connections {
                    group.addTask { await server.handle(connection) }
                }
            }
        }
        server.acceptTask.withLock { $0 = task }
        return server
    }

    /// `SCHEME://HOST:PORT` + `path`; `host` may name another spelling of the address (`localhost`) so a test
    /// has two origins.
    public func url(_ path: String, host: String? = nil) -> URL {
        // The path is built by tests from fixed strings; a bad one is a test bug, reported as a bad URL.
        URL(string: "\(scheme)://\(host ?? self.host):\(port)\(path)") ?? URL(fileURLWithPath: "/invalid-test-url")
    }

    /// Adds (or replaces) the file `name`, served at `/files/NAME` and the other routes that take a NAME.
    /// `cacheControl`, when given, is sent as `Cache-Control` with the file and with its `304` answers.
    public func serve(_ name: String, data: Data, contentType: String = "application/octet-stream",
                      etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil) {
        // Rebased to index 0 (a slice keeps its parent's indices), which the range answers count from.
        let file = ServedFile(data: Data(data), contentType: contentType,
                              etag: etag ?? "\"\(data.count)-\(ServedFile.fnv1a(data))\"",
                              lastModified: lastModified ?? "Wed, 21 Oct 2015 07:28:00 GMT", cacheControl: cacheControl)
        files.withLock { $0[name] = file }
    }

    /// Closes gate `name`: requests to `/gate/NAME/...` wait until it opens. Gates start closed.
    public func closeGate(_ name: String) { gates.close(name) }

    /// Opens gate `name`, releasing every request waiting on it and any that come later.
    public func openGate(_ name: String) { gates.open(name) }

    /// What the server has seen so far.
    public var log: ServerLog { state.withLock { $0.log } }

    /// Returns `true` once `condition` holds for the server's log (checked after every change), or `false` if
    /// it still does not hold after `timeout` or when the server stops. The time limit is a safety net: a test
    /// whose condition never comes true fails instead of hanging the whole run. It counts only time in which the
    /// cooperative pool could run the timer (``AwakeTimeBudget``): when other tests hold every thread, the client
    /// whose request the condition waits for is starved too, and that is no reason to fail.
    @discardableResult
    public func waitUntil(timeout: Duration = .seconds(60),
                          _ condition: @escaping @Sendable (ServerLog) -> Bool) async -> Bool {
        // Started only once the waiter is registered, so that it can always find it.
        let expiry = ServerLock<Task<Void, Never>?>(nil)
        defer { expiry.withLock { $0?.cancel() } }
        return await withCheckedContinuation { continuation in
            let (id, answer) = state.withLock { state -> (Int, Bool?) in
                let holds = condition(state.log)
                if state.isShutDown || holds { return (0, holds) }
                state.nextWaiter += 1
                state.waiters.append(ServerState.Waiter(id: state.nextWaiter, condition: condition,
                                                        continuation: continuation))
                return (state.nextWaiter, nil)
            }
            if let answer { return continuation.resume(returning: answer) }
            let state = self.state
            expiry.withLock {
                $0 = Task {
                    var budget = AwakeTimeBudget(limit: timeout)
                    while budget.remains() {
                        try? await Task.sleep(for: .milliseconds(20))
                        if Task.isCancelled { return }
                    }
                    state.withLock { $0.removeWaiter(id) }?.resume(returning: false)
                }
            }
        }
    }

    /// Stops accepting, closes every connection and releases every waiter.
    public func shutdown() async {
        let waiters = state.withLock { state -> [(CheckedContinuation<Bool, Never>, Bool)] in
            state.isShutDown = true
            return state.satisfiedWaiters()
        }
        for (waiter, holds) in waiters { waiter.resume(returning: holds) }
        gates.openAll()
        let open = channels.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
        try? await serverChannel.close()
        incoming.finish()
        let task = acceptTask.withLock { $0 }
        task?.cancel()
        await task?.value
    }

    /// Applies `change` to the state, then wakes waiters whose condition now holds.
    func update<T>(_ change: (inout ServerState) -> T) -> T {
        let (result, ready) = state.withLock { state in
            let result = change(&state)
            return (result, state.satisfiedWaiters())
        }
        for (waiter, holds) in ready { waiter.resume(returning: holds) }
        return result
    }

    private func handle(_ connection: HTTPConnection) async {
        let id = nextConnection.wrappingAdd(1, ordering: .relaxed).oldValue
        let channel = connection.channel
        channels.withLock { $0[id] = channel }
        update { state in
            state.connections[id] = ServerState.Connection()
            state.log.connectionCount += 1
            state.log.openConnections += 1
        }
        channel.closeFuture.whenComplete { _ in
            self.channels.withLock { _ = $0.removeValue(forKey: id) }
            self.update { $0.connectionClosed(id) }
        }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                case .body:
                    continue
                case .end:
                    guard let requestHead = head else { continue }
                    head = nil
                    let sequence = update { state in
                        state.requestStarted(connection: id, uri: requestHead.uri,
                                             headers: requestHead.headers.map { (name: $0.name, value: $0.value) },
                                             version: "\(requestHead.version)")
                    }
                    let exchange = Exchange(server: self, connection: id, channel: channel, outbound: outbound,
                                            head: requestHead, sequence: sequence)
                    let keepOpen = try await route(exchange)
                    update { $0.requestEnded(connection: id, sequence: sequence) }
                    guard keepOpen, requestHead.isKeepAlive else { return }
                }
            }
        }
    }
}

/// Why the server could not start.
public enum TestImageServerError: Error {
    /// The listening socket has no port.
    case noPort
}
