import ArgumentParser

/// `webimage serve`'s flags for watching it run: the extra health path, the Prometheus listener, and the log's
/// format and level (``ServeSettings/operations(_:)`` and ``ServeSettings/logging()`` read them).
struct OperationsOptions: ParsableArguments {
    @Option(name: .customLong("health-check-path"), help: ArgumentHelp(
        "A path answered as /health is, under --path-prefix too (imgproxy's IMGPROXY_HEALTH_CHECK_PATH).",
        valueName: "PATH"))
    var healthCheckPath: String?
    @Option(name: .customLong("prometheus-bind"), help: ArgumentHelp(
        "Serve imgproxy's Prometheus metrics (requests_total, request_duration_seconds, …) on any path of this second listener; /metrics on the main port stays.",
        valueName: "HOST:PORT"))
    var prometheusBind: String?
    @Option(name: .customLong("prometheus-namespace"), help: ArgumentHelp(
        "Put NAMESPACE_ before the names of the --prometheus-bind metrics (default: none).", valueName: "NAMESPACE"))
    var prometheusNamespace: String?
    @Option(name: .customLong("log-format"), help: ArgumentHelp(
        "pretty (the default), structured (key=value), json (one object a line) or gcp (JSON with Google Cloud's severity and message).",
        valueName: "FORMAT"))
    var logFormat: String?
    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "The least important lines written: debug, info (the default; a line per request), warn or error.",
        valueName: "LEVEL"))
    var logLevel: String?
}
