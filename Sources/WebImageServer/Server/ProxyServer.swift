import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// `ImageProxy` served over HTTP/1.1 by Hummingbird. Requests are handed to the proxy as they came (the raw path:
/// signatures sign the path as sent), so no router rewrites them. Hummingbird's service group stops the server on
/// SIGTERM and SIGINT after in-flight requests finish; new connections are refused from then on.
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
        let responder = CallbackResponder<ProxyRequestContext> { request, context in
            let started = ContinuousClock.now
            let proxyRequest = ProxyRequest(
                method: request.method.rawValue, path: request.uri.path,
                accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch])
            let answer = await disconnects.run(on: context.channel) { await proxy.respond(to: proxyRequest) }
            var fields = HTTPFields()
            for (name, value) in answer.headers {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            let elapsed = ContinuousClock.now - started
            logger.info(
                "\(request.method.rawValue) \(request.uri.path) \(answer.status) \(answer.body.count) bytes \(elapsed)")
            return Response(status: HTTPResponse.Status(code: answer.status), headers: fields,
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        let configuration = proxy.configuration
        let application = Application(
            responder: responder,
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

/// Hummingbird's basic context plus the request's channel (to notice its client going away).
struct ProxyRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
