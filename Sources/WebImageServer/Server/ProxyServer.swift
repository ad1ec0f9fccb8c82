import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// `webimage serve`: a Hummingbird application with nothing but ``ImageProxyMiddleware`` (and an access log).
/// Requests reach the proxy as they came (the raw path: signatures sign the path as sent). Hummingbird's service
/// group stops the server on SIGTERM and SIGINT after in-flight requests finish; new connections are refused from
/// then on.
///
/// Connections are bounded in time: a request head must arrive within the header timeout of its first byte, and
/// a connection without a request closes after the idle timeout. A request whose client goes away stops waiting.
public enum ProxyServer {
    /// Serves `proxy` on its configured host and port until a termination signal.
    /// - Parameter onListening: called once with the bound address (`http://HOST:PORT`) when the server accepts
    ///   connections.
    public static func run(_ proxy: ImageProxy, logger: Logger,
                           onListening: @escaping @Sendable (String) -> Void) async throws {
        let disconnects = ClientDisconnects()
        let router = Router(context: ProxyRequestContext.self)
        router.add(middleware: AccessLog(logger: logger))
        router.add(middleware: ImageProxyMiddleware(proxy, mountedAt: "", disconnects: disconnects))
        let configuration = proxy.configuration
        let application = Application(
            router: router,
            server: .http1(configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [RequestHeadTimeout(limit: TimeAmount(configuration.headerTimeout)),
                                            disconnects.makeHandler()],
                idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "webimage"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                onListening("http://\(host):\(port)")
            },
            logger: logger)
        try await application.runService()
    }
}

/// One line per request on the logger: method, path, status, body bytes, time taken.
struct AccessLog<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - started
        logger.info("""
            \(request.method.rawValue) \(request.uri.path) \(response.status.code) \
            \(response.body.contentLength ?? 0) bytes \(elapsed)
            """)
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
