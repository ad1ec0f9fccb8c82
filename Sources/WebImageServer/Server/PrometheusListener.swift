import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The Prometheus listener of `webimage serve` (imgproxy's `IMGPROXY_PROMETHEUS_BIND`): a second HTTP server
/// that answers any `GET` path with imgproxy's metrics (``ImgproxyMetrics``), as imgproxy's does, so that a
/// scraper never reaches the image port and the image port's clients never reach the metrics.
enum PrometheusListener {
    /// The listener for `proxy`'s Prometheus bind, as a service to run beside the image server (it starts and stops
    /// with it); none when no bind is configured.
    static func services(for proxy: ImageProxy, logger: Logger) -> [any Service] {
        guard let bind = proxy.configuration.operations.prometheusBind else { return [] }
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            guard request.method == .get || request.method == .head else {
                return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
            }
            let text = proxy.imgproxyExposition ?? ""
            // Prometheus's text exposition format, version 0.0.4.
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname(bind.host, port: bind.port),
                                                    serverName: "webimage"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? bind.port
                let host = bind.host.contains(":") ? "[\(bind.host)]" : bind.host
                // Port 0 picks one: the line says which.
                logger.info("serving imgproxy's Prometheus metrics on http://\(host):\(port)")
            },
            logger: logger)
        return [application]
    }
}
