import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `ImageProxy` served over HTTP/1.1 by Hummingbird. Requests are handed to the proxy as they came (the raw path:
/// signatures sign the path as sent), so no router rewrites them. Hummingbird's service group stops the server on
/// SIGTERM and SIGINT after in-flight requests finish; new connections are refused from then on.
public enum ProxyServer {
    /// Serves `proxy` on its configured host and port until a termination signal.
    /// - Parameter onListening: called once with the bound address (`http://HOST:PORT`) when the server accepts
    ///   connections.
    public static func run(_ proxy: ImageProxy, logger: Logger,
                           onListening: @escaping @Sendable (String) -> Void) async throws {
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let started = ContinuousClock.now
            let answer = await proxy.respond(to: ProxyRequest(
                method: request.method.rawValue, path: request.uri.path,
                accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch]))
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
