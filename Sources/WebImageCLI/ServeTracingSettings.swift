import Foundation
import WebImageServer

extension ServeSettings {
    /// imgproxy's telemetry variables honoured here. They are marked as read even while tracing is off, where
    /// they do nothing, as in imgproxy.
    private static let imgproxyTracingVariables = [
        "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT", "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT",
        "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY", "IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR",
    ]

    /// Request traces: on with `--open-telemetry` (`WEBIMAGE_OPEN_TELEMETRY`, imgproxy's
    /// `IMGPROXY_OPEN_TELEMETRY_ENABLE`) unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`, then set
    /// by the OpenTelemetry SDKs' `OTEL_*` variables and imgproxy's TLS and trace-ID variables. While off, no
    /// `OTEL_*` value is read, so none can stop the start.
    func tracing(_ configuration: inout ProxyConfiguration) throws {
        let options = command.tracingOptions
        Self.imgproxyTracingVariables.forEach(source.consult)
        let otel = OpenTelemetryVariables(environment: source.environment)
        guard try source.switchOn(options.openTelemetry, "OPEN_TELEMETRY",
                                  imgproxy: ["IMGPROXY_OPEN_TELEMETRY_ENABLE"]),
              !otel.isTrue("OTEL_SDK_DISABLED")
        else { return }
        if let exporters = otel.first("OTEL_TRACES_EXPORTER") {
            let names = exporters.text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if names.contains("none") { return }
            if names.contains(where: { $0 != "otlp" }) {
                source.warn("warning: OTEL_TRACES_EXPORTER=\(exporters.text): traces are sent over OTLP only")
            }
        }
        var tracing = ProxyTracing(endpoint: try tracingEndpoint(otel))
        try readExporter(otel, into: &tracing)
        try readTLS(otel, into: &tracing)
        try readResource(otel, into: &tracing)
        (tracing.sampleRatio, tracing.followsParentSampling) = try otel.sampler()
        let propagators = try otel.propagators()
        tracing.readsTraceContext = propagators.readsTraceContext
        if !propagators.ignored.isEmpty {
            source.warn("warning: OTEL_PROPAGATORS: \(propagators.ignored.joined(separator: ", ")) ignored: only "
                        + "W3C tracecontext (traceparent) is read")
        }
        try readBatching(otel, into: &tracing)
        if let generator = source.find("", imgproxy: ["IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR"]) {
            switch generator.text.trimmingCharacters(in: .whitespaces) {
            case "xray": tracing.traceIDs = .xray
            case "random": tracing.traceIDs = .random
            default: throw ServeError("\(generator.origin)=\(generator.text): expected xray or random")
            }
        }
        configuration.operations.tracing = tracing
    }

    /// `--open-telemetry-endpoint` as given, else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given (the spec: it
    /// names the traces path itself), else `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` after its path, else
    /// the SDKs' default.
    private func tracingEndpoint(_ otel: OpenTelemetryVariables) throws -> URL {
        let found: ServeSettingSource.Found
        var appendsTracesPath = false
        if let given = source.text(command.tracingOptions.openTelemetryEndpoint, flag: "--open-telemetry-endpoint",
                                   "OPEN_TELEMETRY_ENDPOINT"), !given.text.isEmpty {
            found = given
        } else if let traces = otel.first("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            found = traces
        } else if let base = otel.first("OTEL_EXPORTER_OTLP_ENDPOINT") {
            (found, appendsTracesPath) = (base, true)
        } else {
            return ProxyTracing.defaultEndpoint
        }
        guard var components = URLComponents(string: found.text.trimmingCharacters(in: .whitespaces)),
              ["http", "https"].contains(components.scheme?.lowercased() ?? ""), components.host?.isEmpty == false
        else {
            throw ServeError("\(found.origin) \(found.text): expected an http or https URL with a host, as "
                             + "http://collector:4318")
        }
        if appendsTracesPath {
            components.path += components.path.hasSuffix("/") ? "v1/traces" : "/v1/traces"
        }
        guard let url = components.url else { throw ServeError("\(found.origin) \(found.text): not a URL") }
        return url
    }

    /// The protocol, headers, timeout and compression of the OTLP exporter.
    private func readExporter(_ otel: OpenTelemetryVariables, into tracing: inout ProxyTracing) throws {
        let advice = "set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and point the endpoint at the collector's "
            + "OTLP/HTTP port (4318 by default)"
        if let found = otel.exporter("PROTOCOL") {
            switch found.text.lowercased() {
            case "http/protobuf", "http", "https": break
            case "grpc":
                throw ServeError("\(found.origin)=grpc: OTLP over gRPC is not spoken here; \(advice)")
            case "http/json":
                throw ServeError("\(found.origin)=http/json: OTLP/JSON is not sent here (nor by imgproxy); \(advice)")
            default: throw ServeError("\(found.origin)=\(found.text): expected http/protobuf")
            }
        } else if tracing.endpoint.port == 4317 {
            // imgproxy's default protocol is gRPC, on this port: its deployments may name it without a protocol.
            source.warn("warning: the traces endpoint \(tracing.endpoint.absoluteString) is on OTLP/gRPC's port "
                        + "4317, but traces are sent over OTLP/HTTP: \(advice)")
        }
        if let found = otel.exporter("HEADERS") {
            tracing.headers = try OpenTelemetryVariables.keyValues(found).map { pair in
                let header = ServeSettingSource.Found(origin: found.origin, text: pair.value)
                guard Self.isHeaderName(pair.key) else { throw ServeError("\(found.origin): \(pair.key) is not a header name") }
                try Self.checkHeaderValue(header)
                return (pair.key, pair.value)
            }
        }
        if let found = otel.exporter("TIMEOUT") {
            tracing.exportTimeout = try OpenTelemetryVariables.milliseconds(found)
        }
        if let found = otel.exporter("COMPRESSION") {
            switch found.text.lowercased() {
            case "gzip": tracing.compressesExports = true
            case "none": tracing.compressesExports = false
            default: throw ServeError("\(found.origin)=\(found.text): expected gzip or none")
            }
        }
    }

    /// RFC 9110's token characters, the only ones a header field's name may hold.
    private static func isHeaderName(_ name: String) -> Bool {
        name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars
                .contains(scalar))
        }
    }

    /// The collector's trusted certificates and the client's certificate and key: files named by the SDKs'
    /// variables, else PEM text in imgproxy's (with `\n` for line breaks).
    private func readTLS(_ otel: OpenTelemetryVariables, into tracing: inout ProxyTracing) throws {
        func pem(_ name: String, imgproxy: String) throws -> (origin: String, text: String)? {
            if let path = otel.exporter(name) {
                guard let data = FileManager.default.contents(atPath: path.text) else {
                    throw ServeError("\(path.origin) \(path.text): cannot be read")
                }
                let text = String(decoding: data, as: UTF8.self)
                guard text.contains("-----BEGIN ") else {
                    throw ServeError("\(path.origin) \(path.text): expected a PEM file (-----BEGIN …)")
                }
                return (path.origin, text)
            }
            guard let found = source.find("", imgproxy: [imgproxy]) else { return nil }
            let text = found.text.replacingOccurrences(of: "\\n", with: "\n")
            guard text.contains("-----BEGIN ") else {
                throw ServeError("\(found.origin): expected PEM text (-----BEGIN …), with \\n for line breaks")
            }
            return (found.origin, text)
        }
        tracing.trustedCertificatesPEM = try pem("CERTIFICATE", imgproxy: "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT")?.text
        let certificate = try pem("CLIENT_CERTIFICATE", imgproxy: "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT")
        let key = try pem("CLIENT_KEY", imgproxy: "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY")
        switch (certificate, key) {
        case let (certificate?, nil):
            throw ServeError("\(certificate.origin) needs a client key too (OTEL_EXPORTER_OTLP_CLIENT_KEY or "
                             + "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY)")
        case let (nil, key?):
            throw ServeError("\(key.origin) needs a client certificate too (OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE "
                             + "or IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT)")
        default:
            (tracing.clientCertificatePEM, tracing.clientKeyPEM) = (certificate?.text, key?.text)
        }
    }

    /// `--open-telemetry-service-name`, else `OTEL_SERVICE_NAME`, else the `service.name` of
    /// `OTEL_RESOURCE_ATTRIBUTES`, whose other attributes go with every export.
    private func readResource(_ otel: OpenTelemetryVariables, into tracing: inout ProxyTracing) throws {
        if let found = otel.first("OTEL_RESOURCE_ATTRIBUTES") {
            let attributes = try OpenTelemetryVariables.keyValues(found)
            if let name = attributes.last(where: { $0.key == "service.name" }), !name.value.isEmpty {
                tracing.serviceName = name.value
            }
            tracing.resourceAttributes = attributes.filter { $0.key != "service.name" }
        }
        if let name = source.text(command.tracingOptions.openTelemetryServiceName,
                                  flag: "--open-telemetry-service-name", "OPEN_TELEMETRY_SERVICE_NAME")
            ?? otel.first("OTEL_SERVICE_NAME"),
           !name.text.isEmpty {
            tracing.serviceName = name.text
        }
    }

    /// The batch span processor's `OTEL_BSP_*`: the delay, the queue and batch sizes (a batch no larger than the
    /// queue, as the spec says), and an export timeout that can only shorten the exporter's.
    private func readBatching(_ otel: OpenTelemetryVariables, into tracing: inout ProxyTracing) throws {
        if let found = otel.first("OTEL_BSP_SCHEDULE_DELAY") {
            tracing.scheduleDelay = try OpenTelemetryVariables.milliseconds(found)
        }
        if let found = otel.first("OTEL_BSP_MAX_QUEUE_SIZE") {
            tracing.maximumQueuedSpans = try OpenTelemetryVariables.wholeNumber(found, minimum: 1)
        }
        if let found = otel.first("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") {
            tracing.maximumBatchSpans = try OpenTelemetryVariables.wholeNumber(found, minimum: 1)
        }
        guard tracing.maximumBatchSpans <= tracing.maximumQueuedSpans else {
            throw ServeError("OTEL_BSP_MAX_EXPORT_BATCH_SIZE (\(tracing.maximumBatchSpans)) must be at most "
                             + "OTEL_BSP_MAX_QUEUE_SIZE (\(tracing.maximumQueuedSpans))")
        }
        if let found = otel.first("OTEL_BSP_EXPORT_TIMEOUT") {
            tracing.exportTimeout = min(tracing.exportTimeout, try OpenTelemetryVariables.milliseconds(found))
        }
    }
}
