import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// `webimage serve`: a Hummingbird application with nothing but ``ImageProxyMiddleware`` (and an access log).
/// Requests reach the proxy as they came (the raw path: signatures sign the path as sent). Hummingbird's service
/// group stops the server on SIGTERM and SIGINT after in-flight requests finish, or once the graceful stop timeout
/// has passed; new connections are refused from then on. While the most connections allowed are open, no more are
/// accepted: they wait in the listen queue.
///
/// Connections are bounded in time: a request head must arrive within the header timeout of its first byte, and
/// a connection without a request closes after the idle timeout. A request whose client goes away stops waiting.
public enum ProxyServer {
    /// Runs Swift concurrency's tasks on the event loops the server and its source client use (NIO's singleton
    /// group) instead of on a pool of threads of their own, for the rest of the process. A request's steps are
    /// tasks that mostly wait for an event loop (the origin's bytes, the client's socket): with a pool of their
    /// own, each step is a hand-over between threads (on two cores, 0.1 to 0.2 ms of a distinct 1 MP render's
    /// 6.5 ms of CPU). What the server runs as tasks does not wait on the disk or a decoder: files are read on the
    /// I/O lanes, images decoded on the render threads. Call it before serving; calls after the first do nothing.
    /// - Returns: whether tasks run on the event loops (`false` where NIO cannot take the pool over).
    @discardableResult
    public static func runTasksOnEventLoops() -> Bool { tasksOnEventLoops }

    /// NIO's take-over may happen once a process.
    private static let tasksOnEventLoops =
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

    /// Serves `proxy` on its configured host and port (or Unix socket) until a termination signal: the proxy
    /// starts up first (``ImageProxy/start()``, which throws what stops it), then runs as a service of the
    /// server's group and stops after the server.
    /// - Parameter onListening: called once with the bound address (`http://HOST:PORT`, or `unix:PATH`) when the
    ///   server accepts connections.
    public static func run(_ proxy: ImageProxy, logger: Logger,
                           onListening: @escaping @Sendable (String) -> Void) async throws {
        let disconnects = ClientDisconnects()
        let accessLog = AccessLog(logger: logger)
        let router = Router(context: ProxyRequestContext.self)
        router.add(middleware: AccessLogMiddleware(log: accessLog))
        router.add(middleware: ImageProxyMiddleware(proxy, mountedAt: "", disconnects: disconnects,
                                                    hitsAnsweredEarlier: true))
        let configuration = proxy.configuration
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestHeadTimeout(limit: TimeAmount(configuration.headerTimeout)),
                                        disconnects.makeHandler()],
            idleTimeout: TimeAmount(configuration.idleTimeout))
        let serverName = "webimage"
        let application = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                HTTP1ChannelAnsweringHits(base: HTTP1Channel(responder: responder, configuration: http1)) {
                    MemoryHitResponder(proxy: proxy, accessLog: accessLog, serverName: serverName)
                }
            },
            configuration: ApplicationConfiguration(
                address: configuration.unixSocketPath.map { .unixDomainSocket(path: $0) }
                    ?? .hostname(configuration.host, port: configuration.port),
                serverName: serverName,
                availableConnectionsDelegate: configuration.maximumClients.map {
                    MaximumAvailableConnections($0, logger: logger)
                }),
            onServerRunning: { channel in
                if configuration.maximumClients != nil {
                    // The limit is checked before each read of the listening socket, and one read accepts up to
                    // this many connections: one, so that the limit is never passed.
                    try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: 1).get()
                }
                if let path = configuration.unixSocketPath {
                    onListening("unix:\(path)")
                    return
                }
                let port = channel.localAddress?.port ?? configuration.port
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                onListening("http://\(host):\(port)")
            },
            logger: logger)
        try await proxy.start()
        // The proxy first: a group stops its services last to first, so the proxy sends the last requests' spans
        // and closes its source connections once the server has answered everything.
        let services: [any Service] = [proxy, application] + PrometheusListener.services(for: proxy, logger: logger)
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                              logger: logger)
        group.maximumGracefulShutdownDuration = configuration.gracefulStopTimeout ?? configuration.requestTimeout * 2
        try await ServiceGroup(configuration: group).run()
    }
}

/// One line per request on the logger: method, path, status, body bytes, time taken (`GET /… 200 5321 bytes
/// 0.000042 seconds`). Written for the answers Hummingbird makes (``AccessLogMiddleware``) and for those made in
/// the pipeline (``MemoryHitResponder``).
struct AccessLog: Sendable {
    /// What a line says of a request, and when it started.
    struct Request {
        var method: String
        var path: String
        var started = ContinuousClock.now
    }

    let logger: Logger
    /// `logger`'s handler when it is the batched one, whose buffer a line is written into directly (on a memory
    /// hit, going through a `Logger` call cost as much as the rest of the access log).
    private let buffered: BufferedLogHandler?

    init(logger: Logger) {
        self.logger = logger
        buffered = logger.handler as? BufferedLogHandler
    }

    /// The line of `request`, answered now.
    func record(_ request: Request, status: Int, bytes: Int) {
        let elapsed = ContinuousClock.now - request.started
        if let buffered {
            buffered.info { Self.write(request, status: status, bytes: bytes, elapsed: elapsed, into: &$0) }
        } else if logger.logLevel <= .info {
            var line: [UInt8] = []
            Self.write(request, status: status, bytes: bytes, elapsed: elapsed, into: &line)
            logger.info("\(String(decoding: line, as: UTF8.self))")
        }
    }

    private static func write(_ request: Request, status: Int, bytes: Int, elapsed: Duration,
                              into line: inout [UInt8]) {
        line.append(contentsOf: request.method.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: request.path.utf8)
        line.append(UInt8(ascii: " "))
        writeDecimal(status, into: &line)
        line.append(UInt8(ascii: " "))
        writeDecimal(bytes, into: &line)
        line.append(contentsOf: " bytes ".utf8)
        // Seconds to the microsecond.
        let (seconds, attoseconds) = elapsed.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        writeDecimal(Int(microseconds / 1_000_000), into: &line)
        line.append(UInt8(ascii: "."))
        writeDecimal(Int(microseconds % 1_000_000), into: &line, digits: 6)
        line.append(contentsOf: " seconds".utf8)
    }

    /// `value` in decimal, zero-padded to `digits`.
    private static func writeDecimal(_ value: Int, into line: inout [UInt8], digits: Int = 1) {
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: any Int's digits and sign
        withUnsafeMutableBytes(of: &scratch) { scratch in
            let end = scratch.count
            var start = end, remaining = value.magnitude
            repeat {
                start -= 1
                scratch[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining > 0 || end - start < digits
            if value < 0 { start -= 1; scratch[start] = UInt8(ascii: "-") }
            line.append(contentsOf: scratch[start..<end])
        }
    }
}

/// The access log of the answers Hummingbird's router makes.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: AccessLog

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let line = AccessLog.Request(method: request.method.rawValue, path: request.uri.path)
        let response = try await next(request, context)
        log.record(line, status: response.status.code, bytes: response.body.contentLength ?? 0)
        return response
    }
}

/// Hummingbird's basic context plus the request's channel (to notice its client going away).
struct ProxyRequestContext: ChannelRequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
