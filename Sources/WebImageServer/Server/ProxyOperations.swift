/// How `webimage serve` is watched: the extra health path, the Prometheus listener with imgproxy's metric names
/// (imgproxy's `IMGPROXY_HEALTH_CHECK_PATH`, `IMGPROXY_PROMETHEUS_BIND` and `IMGPROXY_PROMETHEUS_NAMESPACE`) and
/// the request traces (OpenTelemetry's `OTEL_*` settings).
public struct ProxyOperations: Sendable {
    /// A path answered as `/health` is (200 while serving, open without the secret), under the path prefix like
    /// every route, as `/healthz`. `nil`: only `/health`.
    public var healthCheckPath: String?
    /// Where a second listener serves imgproxy's metrics (`ImgproxyMetrics`) on any path: a host and a port
    /// (0 picks a free one). `nil`: no such listener; `/metrics` on the main port is there either way.
    public var prometheusBind: (host: String, port: Int)?
    /// Put before every imgproxy metric's name with an underscore (`imgproxy` makes `imgproxy_requests_total`).
    /// Empty: none.
    public var prometheusNamespace = ""
    /// Where request traces go (OpenTelemetry over OTLP/HTTP). `nil`: no tracing.
    public var tracing: ProxyTracing?

    /// No extra health path, no Prometheus listener.
    public init() {}
}
