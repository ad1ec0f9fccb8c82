import ArgumentParser

/// `webimage serve`'s flags for request traces (read by ``ServeSettings/tracing(_:)``). Everything else about
/// tracing is read from the OpenTelemetry SDKs' `OTEL_*` variables only, as the SDKs themselves do.
struct TracingOptions: ParsableArguments {
    @Flag(name: .customLong("open-telemetry"), help: ArgumentHelp(
        "Send a trace of each request to an OpenTelemetry collector over OTLP/HTTP, configured by the standard OTEL_* variables (imgproxy's IMGPROXY_OPEN_TELEMETRY_ENABLE)."))
    var openTelemetry = false
    @Option(name: .customLong("open-telemetry-endpoint"), help: ArgumentHelp(
        "The collector's traces URL, path included (default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces, else http://localhost:4318/v1/traces).",
        valueName: "URL"))
    var openTelemetryEndpoint: String?
    @Option(name: .customLong("open-telemetry-service-name"), help: ArgumentHelp(
        "The service.name the traces carry (default: OTEL_SERVICE_NAME, else webimage).", valueName: "NAME"))
    var openTelemetryServiceName: String?
}
