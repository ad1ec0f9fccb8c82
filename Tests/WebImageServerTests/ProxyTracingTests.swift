import Foundation
import Logging
import CoderTestSupport
import Testing
@testable import WebImageServer

/// Request traces, exported to a real OTLP/HTTP collector that decodes them with opentelemetry-proto's classes.
@Suite struct ProxyTracingTests {
    /// Runs `body` with a proxy tracing to a fresh collector (with `adjust` applied to its tracing), its exporter
    /// running; the exporter is stopped (sending what waits) before `body`'s checks of the collector.
    private func withTracedProxy(answering status: Int = 200,
                                 _ adjust: @escaping (inout ProxyTracing) -> Void = { _ in },
                                 _ requests: (ProxyHarness) async throws -> Void,
                                 then check: (OTLPCollector, TraceExporter, ProxyHarness) throws -> Void) async throws {
        try await OTLPCollector.with(answering: status) { collector in
            try await ProxyHarness.with(configuring: { configuration in
                var tracing = ProxyTracing(endpoint: collector.endpoint)
                tracing.scheduleDelay = .seconds(3600)  // exports leave when a batch is full, or at the stop
                adjust(&tracing)
                configuration.operations.tracing = tracing
            }) { harness in
                let exporter = try #require(harness.proxy.tracer?.exporter)
                let running = Task { try await exporter.run(logger: Logger(label: "test")) }
                do {
                    try await requests(harness)
                } catch {
                    exporter.stop()
                    try? await running.value
                    throw error
                }
                exporter.stop()
                try await running.value
                try check(collector, exporter, harness)
            }
        }
    }

    @Test func aRenderedRequestHasASpanForEachStepInsideItsOwn() async throws {
        try await withTracedProxy({
            $0.serviceName = "thumbs"
            $0.resourceAttributes = [("deployment.environment", "test")]
        }) { harness in
            let response = await harness.get(harness.plainPath(["rs:fit:100:100"], "photo.jpg"))
            #expect(response.status == 200)
        } then: { collector, exporter, _ in
            let exports = try collector.exports()
            #expect(exports.allSatisfy { $0.path == "/v1/traces" && $0.contentType == "application/x-protobuf" })
            let spans = exports.flatMap(\.spans)
            let request = try #require(spans.first { $0.name == "/request" })
            #expect(request.kind == 2)  // SERVER
            #expect(request.parentSpanId.isEmpty)
            #expect(request.attributes["http.response.status_code"] == .number(200))
            #expect(request.attributes["http.request.method"] == .string("GET"))
            #expect(request.attributes["webimage.result_cache"] == .string("miss"))
            #expect(request.statusCode == 0)
            #expect(request.resource["service.name"] == .string("thumbs"))
            #expect(request.resource["deployment.environment"] == .string("test"))
            #expect(request.scope == "webimage-serve")
            #expect(request.traceId.count == 32 && request.spanId.count == 16)
            let steps = spans.filter { $0.name != "/request" }
            #expect(Set(steps.map(\.name))
                    == ["queue", "downloading_image", "decoding_image", "processing_image", "encoding_image"])
            #expect(steps.count == 5)
            for step in steps {
                #expect(step.kind == 1)  // INTERNAL
                #expect(step.traceId == request.traceId)
                #expect(step.parentSpanId == request.spanId)
                #expect(step.spanId != request.spanId)
                #expect(step.startNanoseconds >= request.startNanoseconds)
                #expect(step.endNanoseconds <= request.endNanoseconds)
                #expect(step.startNanoseconds <= step.endNanoseconds)
            }
            let download = try #require(steps.first { $0.name == "downloading_image" })
            #expect(download.attributes["webimage.source.tier"] == .string("origin"))
            #expect(exporter.counts == TraceExportCounts(exported: 6, failed: 0, dropped: 0))
        }
    }

    @Test func aHitIsOneSpanAndACallersSampledContextIsItsParent() async throws {
        let caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let unsampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
        try await withTracedProxy { harness in
            let path = harness.plainPath(["rs:fit:50:50"], "photo.jpg")
            #expect(await harness.get(path).status == 200)
            // The first repeat stores the result on disk; from the next, memory answers on the connection's thread.
            #expect(await harness.get(path).status == 200)
            // A hit answered on the connection's thread, and one through respond(to:), each with the caller's trace.
            let hit = try #require(harness.proxy.immediateResponse(
                to: ProxyRequest(method: "GET", path: path, traceparent: caller)))
            #expect(hit.status == 200)
            #expect(await harness.proxy.respond(to: ProxyRequest(method: "GET", path: path, traceparent: caller)).status
                    == 200)
            // A caller that does not record its trace: neither does the proxy.
            #expect(await harness.proxy.respond(to: ProxyRequest(method: "GET", path: path, traceparent: unsampled))
                .status == 200)
            // A malformed context (uppercase digits) is ignored: a trace of its own.
            #expect(await harness.proxy.respond(to: ProxyRequest(method: "GET", path: path,
                traceparent: caller.uppercased())).status == 200)
        } then: { collector, _, _ in
            let requests = try collector.spans().filter { $0.name == "/request" }
            #expect(requests.count == 5)
            let followed = requests.filter { $0.traceId == "4bf92f3577b34da6a3ce929d0e0e4736" }
            #expect(followed.count == 2)
            #expect(followed.allSatisfy { $0.parentSpanId == "00f067aa0ba902b7" })
            #expect(followed.allSatisfy { $0.attributes["webimage.result_cache"] == .string("memory") })
            #expect(requests.filter { $0.parentSpanId.isEmpty }.count == 3)
        }
    }

    @Test func aServerErrorEndsItsSpanInErrorAndAClientErrorDoesNot() async throws {
        try await withTracedProxy { harness in
            // An origin that answers 500 (a 5xx of the proxy's), then a signature-less unknown route (a 4xx).
            let failed = await harness.get(harness.plainPath([], "500", path: "/status/"))
            #expect(failed.status >= 500)
            #expect(await harness.get("/_/rs:fit:10:10/nothing-here").status / 100 == 4)
        } then: { collector, _, _ in
            let requests = try collector.spans().filter { $0.name == "/request" }
            #expect(requests.count == 2)
            let server = try #require(requests.first { $0.statusCode == 2 })
            #expect(!server.statusMessage.isEmpty)
            if case .number(let status) = server.attributes["http.response.status_code"] {
                #expect(server.attributes["error.type"] == .string(String(Int(status))))
            } else {
                Issue.record("no status code attribute")
            }
            let client = try #require(requests.first { $0.statusCode == 0 })
            #expect(client.attributes["error.type"] == nil)
        }
    }

    @Test func exportsCarryTheirHeadersAndAreGzippedWhenAsked() async throws {
        try await withTracedProxy({
            $0.compressesExports = true
            $0.headers = [("X-Api-Key", "key with spaces")]
        }) { harness in
            #expect(await harness.get(harness.plainPath(["rs:fit:20:20"], "logo.png")).status == 200)
        } then: { collector, exporter, _ in
            let exports = try collector.exports()
            #expect(!exports.isEmpty)
            #expect(exports.allSatisfy { $0.contentEncoding == "gzip" && $0.apiKey == "key with spaces" })
            #expect(exports.flatMap(\.spans).count == 6)
            #expect(exporter.counts.exported == 6)
        }
    }

    @Test func aRatioOfZeroRecordsNoTraceButAParentsDecisionStillCounts() async throws {
        try await withTracedProxy({ $0.sampleRatio = 0 }) { harness in
            let path = harness.plainPath(["rs:fit:30:30"], "photo.jpg")
            #expect(await harness.get(path).status == 200)
            #expect(await harness.proxy.respond(to: ProxyRequest(
                method: "GET", path: path, traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
                .status == 200)
        } then: { collector, _, _ in
            let spans = try collector.spans()
            #expect(spans.count == 1)
            #expect(spans.first?.traceId == "0af7651916cd43dd8448eb211c80319c")
        }
    }

    /// Thousands of requests at once: every one answered, every span exported in full batches, nothing left
    /// waiting; then the same against a collector that refuses everything, with a short line: every span is
    /// either refused by the collector or dropped, and the proxy's gauges are back to zero.
    @Test func thousandsOfTracedRequestsAreAllAnsweredAndAccountedFor() async throws {
        let count = 2000
        for refusing in [false, true] {
            try await withTracedProxy(answering: refusing ? 503 : 200, {
                $0.maximumBatchSpans = refusing ? 50 : 256
                $0.maximumQueuedSpans = refusing ? 100 : 4096
            }) { harness in
                let path = harness.plainPath(["rs:fit:40:40"], "photo.jpg")
                #expect(await harness.get(path).status == 200)
                #expect(await harness.get(path).status == 200)  // stored on disk: memory answers the rest at once
                let statuses = await withTaskGroup(of: Int.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            index % 2 == 0
                                ? await harness.get(path).status
                                : harness.proxy.immediateResponse(
                                    to: ProxyRequest(method: "GET", path: path))?.status ?? 0
                        }
                    }
                    return await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(statuses.count == count && statuses.allSatisfy { $0 == 200 })
            } then: { collector, exporter, harness in
                let load = harness.proxy.load
                #expect(load.renders == 0 && load.rendering == 0 && load.queued == 0 && load.downloading == 0)
                let total = count + 7  // the first request's span and its five steps, and the first repeat's
                let counts = exporter.counts
                if refusing {
                    #expect(counts.exported == 0)
                    #expect(counts.failed + counts.dropped == total)
                    #expect(counts.failed > 0)
                } else {
                    #expect(counts == TraceExportCounts(exported: total, failed: 0, dropped: 0))
                    // Until the stop, only full batches leave (the timer never ticks here).
                    let exports = try collector.exports()
                    #expect(exports.dropLast().allSatisfy { $0.spans.count == 256 })
                    #expect(exports.count == (total + 255) / 256)
                    let spans = exports.flatMap(\.spans)
                    #expect(spans.count == total)
                    #expect(Set(spans.map(\.spanId)).count == total)
                }
            }
        }
    }
}
