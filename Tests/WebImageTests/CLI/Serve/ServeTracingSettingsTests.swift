import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// Request traces: switched on by `--open-telemetry`, `WEBIMAGE_OPEN_TELEMETRY` or imgproxy's
/// `IMGPROXY_OPEN_TELEMETRY_ENABLE`, then set by the OpenTelemetry SDKs' `OTEL_*` variables and imgproxy's TLS and
/// trace-ID variables.
@Suite struct ServeTracingSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]
    static let on = ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true"]

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments),
                      environment: Self.pair.merging(variables) { $1 })
    }

    func tracing(_ arguments: [String] = [], _ variables: [String: String]) throws -> ProxyTracing? {
        try settings(arguments, variables).configuration().operations.tracing
    }

    /// Tracing switched on by imgproxy's variable, with `variables` besides.
    func enabled(_ variables: [String: String]) throws -> ProxyTracing {
        try #require(try tracing([], Self.on.merging(variables) { $1 }))
    }

    /// The message of the error the start stops with.
    func refusal(_ arguments: [String] = [], _ variables: [String: String]) -> String {
        do {
            _ = try settings(arguments, variables).configuration()
            return "started"
        } catch {
            return "\(error)"
        }
    }

    @Test func offByDefaultAndThenNoOtelValueIsRead() throws {
        #expect(try tracing([], [:]) == nil)
        #expect(try tracing([], ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "false"]) == nil)
        // Off, a value that would stop the start is never looked at.
        #expect(try tracing([], ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_TRACES_SAMPLER": "xray"]) == nil)
        let settings = try settings([], ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "false",
                                         "IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR": "random"])
        _ = try settings.configuration()
        #expect(settings.warnings.isEmpty)
    }

    @Test func eachOfTheThreeSwitchesTurnsItOnWithTheSDKsDefaults() throws {
        let switches: [([String], [String: String])] = [
            (["--open-telemetry"], [:]), ([], ["WEBIMAGE_OPEN_TELEMETRY": "1"]),
            ([], ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true"]),
        ]
        for (arguments, variables) in switches {
            let tracing = try #require(try tracing(arguments, variables), "\(arguments) \(variables)")
            #expect(tracing.endpoint == ProxyTracing.defaultEndpoint)
            #expect(tracing.endpoint.absoluteString == "http://localhost:4318/v1/traces")
            #expect(tracing.serviceName == "webimage" && tracing.sampleRatio == 1 && tracing.followsParentSampling)
            #expect(tracing.readsTraceContext && tracing.traceIDs == .xray && !tracing.compressesExports)
            #expect(tracing.exportTimeout == .seconds(10) && tracing.headers.isEmpty)
        }
        // Our variable wins over imgproxy's.
        #expect(try tracing([], ["WEBIMAGE_OPEN_TELEMETRY": "0", "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true"]) == nil)
        #expect(refusal([], ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "yes"]).contains("IMGPROXY_OPEN_TELEMETRY_ENABLE"))
    }

    @Test func theSDKsOffSwitchesWinOverTheFlag() throws {
        #expect(try tracing(["--open-telemetry"], ["OTEL_SDK_DISABLED": "TRUE"]) == nil)
        #expect(try tracing(["--open-telemetry"], ["OTEL_TRACES_EXPORTER": "none"]) == nil)
        #expect(try tracing(["--open-telemetry"], ["OTEL_SDK_DISABLED": "false"]) != nil)
        #expect(try tracing(["--open-telemetry"], ["OTEL_TRACES_EXPORTER": "otlp"]) != nil)
    }

    @Test func theEndpointIsTheFlagThenTheTracesURLAsGivenThenTheBaseURLWithTheTracesPath() throws {
        let all = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example/custom/path",
                   "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        let flag = try #require(try tracing(["--open-telemetry", "--open-telemetry-endpoint",
                                             "http://flag.example:9000/v1/traces"], all))
        #expect(flag.endpoint.absoluteString == "http://flag.example:9000/v1/traces")
        #expect(try enabled(all).endpoint.absoluteString == "https://traces.example/custom/path")
        #expect(try enabled(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]).endpoint.absoluteString
                == "http://collector:4318/v1/traces")
        #expect(try enabled(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/otlp/"]).endpoint.absoluteString
                == "http://collector:4318/otlp/v1/traces")
        #expect(try enabled(["OTEL_EXPORTER_OTLP_ENDPOINT": ""]).endpoint == ProxyTracing.defaultEndpoint)
        for bad in ["collector:4318", "ftp://collector/", "http:///v1/traces", "not a url"] {
            #expect(refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_ENDPOINT": bad]) { $1 })
                .contains("OTEL_EXPORTER_OTLP_ENDPOINT"), "\(bad)")
        }
    }

    @Test func grpcAndJSONAreRefusedWithTheWayToHTTP() throws {
        let grpc = refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) { $1 })
        #expect(grpc.hasPrefix("OTEL_EXPORTER_OTLP_PROTOCOL=grpc: OTLP over gRPC is not spoken here"))
        #expect(grpc.contains("OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf") && grpc.contains("4318"))
        let traces = refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc",
                                                  "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"]) { $1 })
        #expect(traces.hasPrefix("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc"))
        #expect(refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"]) { $1 })
            .contains("http/json"))
        for accepted in ["http/protobuf", "http", "https"] {
            #expect(try enabled(["OTEL_EXPORTER_OTLP_PROTOCOL": accepted]).endpoint == ProxyTracing.defaultEndpoint)
        }
        // imgproxy's gRPC port without a protocol: it starts, with a line saying what is sent.
        let settings = try settings([], Self.on.merging(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel:4317"]) { $1 })
        _ = try settings.configuration()
        #expect(settings.warnings.count == 1 && settings.warnings[0].contains("4317"))
    }

    @Test func headersAreTrimmedAndPercentDecodedAndAMalformedEntryStopsTheStart() throws {
        let tracing = try enabled(["OTEL_EXPORTER_OTLP_HEADERS": " api-key = abc%3D%3D , X-Team=image%20proxy,"])
        #expect(tracing.headers.map(\.name) == ["api-key", "X-Team"])
        #expect(tracing.headers.map(\.value) == ["abc==", "image proxy"])
        let traces = try enabled(["OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_HEADERS": "b=2"])
        #expect(traces.headers.map(\.name) == ["a"])
        for bad in ["novalue", "=value", "a=%zz", "bad name=1", "a=line%0Abreak"] {
            let message = refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_HEADERS": bad]) { $1 })
            #expect(message.hasPrefix("OTEL_EXPORTER_OTLP_HEADERS"), "\(bad): \(message)")
        }
    }

    @Test func timeoutsAreMillisecondsAndCompressionIsGzipOrNone() throws {
        let tracing = try enabled(["OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"])
        #expect(tracing.exportTimeout == .milliseconds(2500) && tracing.compressesExports)
        #expect(try enabled(["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "700", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500"])
            .exportTimeout == .milliseconds(700))
        #expect(try !enabled(["OTEL_EXPORTER_OTLP_COMPRESSION": "none"]).compressesExports)
        #expect(refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_TIMEOUT": "10s"]) { $1 })
            .contains("OTEL_EXPORTER_OTLP_TIMEOUT"))
        #expect(refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"]) { $1 })
            .contains("OTEL_EXPORTER_OTLP_COMPRESSION"))
    }

    @Test func theSixSamplersAndTheirRatio() throws {
        let table: [(String, String?, Double, Bool)] = [
            ("always_on", nil, 1, false), ("always_off", nil, 0, false), ("traceidratio", "0.25", 0.25, false),
            ("traceidratio", nil, 1, false), ("parentbased_always_on", nil, 1, true),
            ("parentbased_always_off", nil, 0, true), ("parentbased_traceidratio", "0.1", 0.1, true),
            ("always_on", "0.5", 1, false),  // the argument is for the ratio samplers only
        ]
        for (sampler, argument, ratio, followsParent) in table {
            var variables = ["OTEL_TRACES_SAMPLER": sampler]
            variables["OTEL_TRACES_SAMPLER_ARG"] = argument
            let tracing = try enabled(variables)
            #expect(tracing.sampleRatio == ratio && tracing.followsParentSampling == followsParent, "\(sampler)")
        }
        for bad in ["1.5", "-0.1", "half", "nan"] {
            #expect(refusal([], Self.on.merging(["OTEL_TRACES_SAMPLER": "traceidratio",
                                                 "OTEL_TRACES_SAMPLER_ARG": bad]) { $1 })
                .contains("OTEL_TRACES_SAMPLER_ARG"), "\(bad)")
        }
        let remote = refusal([], Self.on.merging(["OTEL_TRACES_SAMPLER": "parentbased_jaeger_remote"]) { $1 })
        #expect(remote.hasPrefix("OTEL_TRACES_SAMPLER=parentbased_jaeger_remote") && remote.contains("always_on"))
    }

    @Test func propagatorsTurnTraceContextOnOrOffAndOthersAreWarnedOnce() throws {
        #expect(try !enabled(["OTEL_PROPAGATORS": "none"]).readsTraceContext)
        let mixed = try settings([], Self.on.merging(["OTEL_PROPAGATORS": "tracecontext,baggage,b3,xray"]) { $1 })
        #expect(try #require(try mixed.configuration().operations.tracing).readsTraceContext)
        #expect(mixed.warnings == ["warning: OTEL_PROPAGATORS: b3, xray ignored: only W3C tracecontext "
                                      + "(traceparent) is read"])
        let b3 = try settings([], Self.on.merging(["OTEL_PROPAGATORS": "b3multi"]) { $1 })
        #expect(try #require(try b3.configuration().operations.tracing).readsTraceContext == false)
        let baggage = try settings([], Self.on.merging(["OTEL_PROPAGATORS": "baggage, tracecontext"]) { $1 })
        _ = try baggage.configuration()
        #expect(baggage.warnings.isEmpty)
        #expect(refusal([], Self.on.merging(["OTEL_PROPAGATORS": "tracecontext,w3c"]) { $1 }).contains("w3c"))
    }

    @Test func batchingValuesAndABatchLargerThanTheQueueIsRefused() throws {
        let tracing = try enabled(["OTEL_BSP_SCHEDULE_DELAY": "250", "OTEL_BSP_MAX_QUEUE_SIZE": "100",
                                   "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "40", "OTEL_BSP_EXPORT_TIMEOUT": "3000"])
        #expect(tracing.scheduleDelay == .milliseconds(250))
        #expect(tracing.maximumQueuedSpans == 100 && tracing.maximumBatchSpans == 40)
        #expect(tracing.exportTimeout == .seconds(3))
        // The processor's timeout only shortens the exporter's.
        #expect(try enabled(["OTEL_BSP_EXPORT_TIMEOUT": "30000"]).exportTimeout == .seconds(10))
        let refused = refusal([], Self.on.merging(["OTEL_BSP_MAX_QUEUE_SIZE": "100",
                                                   "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "512"]) { $1 })
        #expect(refused.contains("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") && refused.contains("OTEL_BSP_MAX_QUEUE_SIZE"))
        #expect(refusal([], Self.on.merging(["OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "0"]) { $1 })
            .contains("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"))
    }

    @Test func imgproxysPEMTextTakesBackslashNForLineBreaks() throws {
        let escaped = #"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"#
        let tracing = try enabled(["IMGPROXY_OPEN_TELEMETRY_SERVER_CERT": escaped,
                                   "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT": escaped,
                                   "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY": #"-----BEGIN PRIVATE KEY-----\nAB"#])
        #expect(tracing.trustedCertificatesPEM == "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----")
        #expect(tracing.clientCertificatePEM?.split(separator: "\n").count == 3)
        #expect(tracing.clientKeyPEM == "-----BEGIN PRIVATE KEY-----\nAB")
        #expect(refusal([], Self.on.merging(["IMGPROXY_OPEN_TELEMETRY_SERVER_CERT": "/etc/ca.pem"]) { $1 })
            .contains("IMGPROXY_OPEN_TELEMETRY_SERVER_CERT"))
    }

    @Test func certificateFilesAreReadAndAClientCertificateNeedsItsKey() throws {
        let folder = TestScratch.root.appendingPathComponent("tracing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pem = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"
        let file = folder.appendingPathComponent("ca.pem")
        try Data(pem.utf8).write(to: file)
        let tracing = try enabled(["OTEL_EXPORTER_OTLP_CERTIFICATE": file.path,
                                   "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT": "-----BEGIN CERTIFICATE-----\\nX"])
        #expect(tracing.trustedCertificatesPEM == pem)  // the SDKs' variable wins over imgproxy's
        let missing = refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": file.path + ".x"]) { $1 })
        #expect(missing.hasPrefix("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE") && missing.contains("cannot be read"))
        let alone = refusal([], Self.on.merging(["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": file.path]) { $1 })
        #expect(alone.hasPrefix("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE needs a client key"))
        let keyAlone = refusal([], Self.on.merging(["IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY": "-----BEGIN KEY\\nK"]) { $1 })
        #expect(keyAlone.hasPrefix("IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY needs a client certificate"))
    }

    @Test func theServiceNameIsTheFlagThenOTELServiceNameThenTheResourcesServiceName() throws {
        let resource = ["OTEL_RESOURCE_ATTRIBUTES": "service.name=images, deployment.environment=prod%20eu"]
        let fromResource = try enabled(resource)
        #expect(fromResource.serviceName == "images")
        #expect(fromResource.resourceAttributes.map(\.key) == ["deployment.environment"])
        #expect(fromResource.resourceAttributes.map(\.value) == ["prod eu"])
        #expect(try enabled(resource.merging(["OTEL_SERVICE_NAME": "thumbs"]) { $1 }).serviceName == "thumbs")
        let flag = try #require(try tracing(["--open-telemetry", "--open-telemetry-service-name", "cdn"],
                                            resource.merging(["OTEL_SERVICE_NAME": "thumbs"]) { $1 }))
        #expect(flag.serviceName == "cdn")
        #expect(refusal([], Self.on.merging(["OTEL_RESOURCE_ATTRIBUTES": "region"]) { $1 })
            .hasPrefix("OTEL_RESOURCE_ATTRIBUTES"))
    }

    @Test func imgproxysTraceIDGeneratorAndItsUnhonouredVariablesWarnedWithTheirReason() throws {
        #expect(try enabled(["IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR": "random"]).traceIDs == .random)
        #expect(refusal([], Self.on.merging(["IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR": "uuid"]) { $1 })
            .hasPrefix("IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR"))
        let settings = try settings([], Self.on.merging([
            "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "true", "IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS": "false",
            "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL": "true", "IMGPROXY_OPEN_TELEMETRY_LOGGER_NAME": "imgproxy",
        ]) { $1 })
        _ = try settings.configuration()
        #expect(settings.warnings == [
            "warning: IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS is ignored by webimage serve: metrics are served with "
                + "imgproxy's names on the Prometheus listener (--prometheus-bind)",
            "warning: IMGPROXY_OPEN_TELEMETRY_LOGGER_NAME is ignored by webimage serve: logs go to stderr; "
                + "--log-format json or gcp writes lines a collector's file receiver reads",
            "warning: IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL is ignored by webimage serve: source fetches "
                + "carry no traceparent: one fetch serves every request waiting for that source",
        ])
    }

    @Test func anEnvFileWithOTELLinesIsRead() throws {
        let file = TestScratch.root.appendingPathComponent("tracing-\(UUID().uuidString).env")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            IMGPROXY_OPEN_TELEMETRY_ENABLE=true
            OTEL_EXPORTER_OTLP_ENDPOINT=https://otel.example:4318
            export OTEL_SERVICE_NAME="images"
            OTEL_TRACES_SAMPLER=parentbased_traceidratio
            OTEL_TRACES_SAMPLER_ARG=0.5 # half
            """.utf8).write(to: file)
        let command = try ServeCommand.parse(["--env-file", file.path])
        let environment = try ServeSettings.environment(command: command, process: Self.pair)
        let tracing = try #require(try ServeSettings(command: command, environment: environment).configuration()
            .operations.tracing)
        #expect(tracing.endpoint.absoluteString == "https://otel.example:4318/v1/traces")
        #expect(tracing.serviceName == "images" && tracing.sampleRatio == 0.5 && tracing.followsParentSampling)
    }
}
