import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestImageServer
import WebImage

/// `webimage health`, the extra health path, the Prometheus listener with imgproxy's metric names and the log
/// formats, on a real `webimage serve` process.
@Suite struct ServeOperationsTests {
    /// The port of a server's `http://HOST:PORT` address.
    static func port(_ address: String) -> String { String(address.split(separator: ":").last ?? "") }

    @Test func healthExitsZeroWhileTheServerAnswersAndOneOtherwise() async throws {
        let server = try await ServeProcess.start(
            ["--insecure", "--bind", "127.0.0.1:0", "--path-prefix", "/img", "--health-check-path", "/healthz"],
            environment: ["WEBIMAGE_SECRET": "s3cret"])
        let port = Self.port(server.address)
        // The server's own flags: /health needs no secret, and is under the prefix.
        let flags = try await CommandLineTool.run(["health", "--bind", "127.0.0.1:\(port)", "--path-prefix", "/img",
                                                   "--secret", "s3cret"])
        #expect(flags.status == 0 && flags.stderr.isEmpty)
        // imgproxy's variables, from an env file, with imgproxy's empty host (every address: asked on loopback).
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let envFile = folder.appendingPathComponent("imgproxy.env")
        try Data("IMGPROXY_BIND=:\(port)\nIMGPROXY_PATH_PREFIX=/img/\n".utf8).write(to: envFile)
        let variables = try await CommandLineTool.run(["health", "--env-file", envFile.path])
        #expect(variables.status == 0)
        // Another prefix is a path the server does not have: a 404, not healthy.
        let wrongPrefix = try await CommandLineTool.run(["health", "--bind", "127.0.0.1:\(port)"])
        #expect(wrongPrefix.status == 1)
        #expect(wrongPrefix.errorLines.count == 1 && wrongPrefix.stderr.contains("404"))
        // The extra path answers as /health does, without the secret, under the prefix only.
        #expect(try await server.get("/img/healthz").status == 200)
        #expect(try await server.get("/img/health").status == 200)
        #expect(try await server.get("/healthz").status == 404)
        #expect(try await server.get("/img/metrics").status == 403)  // the rest still needs the secret

        #expect(await server.terminate() == 0)
        let stopped = try await CommandLineTool.run(["health", "--bind", "127.0.0.1:\(port)", "--path-prefix", "/img"])
        #expect(stopped.status == 1)
        #expect(stopped.errorLines.count == 1 && stopped.stderr.contains("no answer"))
    }

    @Test func healthAsksAServerOnAUnixSocketThere() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("serve.sock").path
        let server = try await ServeProcess.start(["--insecure", "--bind", "unix:" + socket])
        #expect(server.address == "unix:" + socket)
        let envFile = folder.appendingPathComponent("imgproxy.env")
        try Data("IMGPROXY_NETWORK=unix\nIMGPROXY_BIND=\(socket)\n".utf8).write(to: envFile)
        let healthy = try await CommandLineTool.run(["health", "--env-file", envFile.path])
        #expect(healthy.status == 0 && healthy.stderr.isEmpty)
        #expect(await server.terminate() == 0)
        let stopped = try await CommandLineTool.run(["health", "--bind", "unix:" + socket])
        #expect(stopped.status == 1 && stopped.errorLines.count == 1)
    }

    @Test func thePrometheusListenerCountsImageRequestsUnderImgproxysNames() async throws {
        let origin = try await TestImageServer.start()
        let pixels = try PixelBuffer(width: 64, height: 48, filledWith: RGBA(10, 200, 30))
        let png = try ImageCoders.shared.encode(Image(pixels: pixels), as: .png)
        origin.serve("a.png", data: png, contentType: "image/png")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--insecure", "--allow-loopback-sources", "--bind", "127.0.0.1:0", "--cache-dir", folder.path,
             "--workers", "2", "--prometheus-bind", "127.0.0.1:0"],
            environment: ["IMGPROXY_PROMETHEUS_NAMESPACE": "imgproxy"])
        let metricsAddress = try await Self.prometheusAddress(of: server)

        // Three answers of one result (a render, then memory hits), a URL that does not parse, and requests that
        // imgproxy does not count: /health and /metrics.
        let path = "/_/rs:fit:32:32/plain/" + origin.url("/files/a.png").absoluteString + "@png"
        for _ in 0..<3 { #expect(try await server.get(path).status == 200) }
        let unparsable = try await server.get("/_/no_such_option:1/plain/" + origin.url("/files/a.png").absoluteString)
        #expect(unparsable.status == 404)
        #expect(try await server.get("/health").status == 200)
        #expect(try await server.get("/metrics").status == 200)

        let scrape = try await Self.get(metricsAddress + "/any/path")
        #expect(scrape.status == 200)
        let text = scrape.body
        func value(_ series: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
                .flatMap { Double($0.dropFirst(series.count + 1)) }
        }
        #expect(value("imgproxy_requests_total") == 4)
        #expect(value("imgproxy_status_codes_total{status=\"200\"}") == 3)
        #expect(value("imgproxy_status_codes_total{status=\"404\"}") == 1)
        #expect(value("imgproxy_errors_total{type=\"path_parsing\"}") == 1)
        #expect(value("imgproxy_request_duration_seconds_count") == 4)
        #expect(value("imgproxy_request_duration_seconds_bucket{le=\"+Inf\"}") == 4)
        #expect(text.contains("imgproxy_request_duration_seconds_bucket{le=\"0.005\"}"))
        #expect(text.contains("imgproxy_request_duration_seconds_bucket{le=\"10.0\"}"))
        // One render: one wait in line, one download of the source's bytes, one decode, transform and encode.
        for span in ["queue", "downloading", "decoding", "transforming", "encoding"] {
            #expect(value("imgproxy_request_span_duration_seconds_count{span=\"\(span)\"}") == 1)
        }
        #expect(value("imgproxy_buffer_size_bytes_count{type=\"download\"}") == 1)
        #expect(value("imgproxy_buffer_size_bytes_sum{type=\"download\"}") == Double(png.count))
        #expect(value("imgproxy_workers") == 2)
        // Nothing in flight once the answers are in.
        for gauge in ["requests_in_progress", "images_in_progress", "workers_utilization"] {
            #expect(value("imgproxy_" + gauge) == 0)
        }
        for (name, type) in [("requests_total", "counter"), ("status_codes_total", "counter"),
                             ("errors_total", "counter"), ("request_duration_seconds", "histogram"),
                             ("request_span_duration_seconds", "histogram"), ("workers", "gauge"),
                             ("requests_in_progress", "gauge"), ("images_in_progress", "gauge"),
                             ("workers_utilization", "gauge"), ("buffer_size_bytes", "histogram")] {
            #expect(text.contains("# TYPE imgproxy_\(name) \(type)\n"))
        }
        // The main port's /metrics keeps its own names, and imgproxy's are only on the listener.
        let ours = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        #expect(ours.contains("webimage_serve_requests_total") && !ours.contains("imgproxy_requests_total"))
        #expect(await server.terminate() == 0)
        await origin.shutdown()
    }

    @Test func theJSONLogIsOneObjectALineWarningsAndAccessLinesIncluded() async throws {
        let server = try await ServeProcess.start(
            ["--insecure", "--bind", "127.0.0.1:0"],
            environment: ["IMGPROXY_LOG_FORMAT": "json", "IMGPROXY_NO_SUCH_SETTING": "1"])
        #expect(try await server.get("/health").status == 200)
        #expect(try await server.get("/nowhere").status == 404)
        #expect(await server.terminate() == 0)  // the log is flushed at exit
        let lines = server.standardError.split(separator: "\n")
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!lines.isEmpty && objects.count == lines.count, "not JSON: \(server.standardError)")
        #expect(objects.allSatisfy { $0["time"] is String && $0["level"] is String && $0["msg"] is String })
        #expect(objects.contains {
            $0["level"] as? String == "WARNING" && ($0["msg"] as? String)?.contains("IMGPROXY_NO_SUCH_SETTING") == true
        })
        #expect(objects.contains { ($0["msg"] as? String)?.hasPrefix("GET /health 200") == true })
        #expect(objects.contains { ($0["msg"] as? String)?.hasPrefix("GET /nowhere 404") == true })
    }

    @Test func gcpAndStructuredLinesAndAFailedStartInTheLogsFormat() async throws {
        let gcp = try await ServeProcess.start(["--insecure", "--bind", "127.0.0.1:0", "--log-format", "gcp"])
        #expect(try await gcp.get("/health").status == 200)
        #expect(await gcp.terminate() == 0)
        let gcpLines = gcp.standardError.split(separator: "\n")
        let objects = gcpLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(!gcpLines.isEmpty && objects.count == gcpLines.count)
        #expect(objects.contains { $0["severity"] as? String == "INFO"
                && ($0["message"] as? String)?.hasPrefix("GET /health 200") == true })

        let structured = try await ServeProcess.start(["--insecure", "--bind", "127.0.0.1:0"],
                                                      environment: ["WEBIMAGE_LOG_FORMAT": "structured"])
        #expect(try await structured.get("/health").status == 200)
        #expect(await structured.terminate() == 0)
        let lines = structured.standardError.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("time=\"") && $0.contains(" level=\"") })
        #expect(lines.contains { $0.contains("level=\"INFO\" msg=\"GET /health 200") })

        // At warn, the access lines are left out.
        let quiet = try await ServeProcess.start(["--insecure", "--bind", "127.0.0.1:0", "--log-format", "json",
                                                  "--log-level", "warn"])
        #expect(try await quiet.get("/health").status == 200)
        #expect(await quiet.terminate() == 0)
        #expect(!quiet.standardError.contains("GET /health"))

        // A mistake after the format is known is written in it too.
        let failed = try await CommandLineTool.run(["serve", "--insecure", "--log-format", "json", "--bind", "nowhere"])
        #expect(failed.status != 0 && failed.errorLines.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(failed.stderr.utf8)) as? [String: Any]
        #expect(object?["level"] as? String == "ERROR")
        #expect((object?["msg"] as? String)?.contains("HOST:PORT") == true)
    }

    /// The Prometheus listener's address, from its start-up line on stderr (its port is picked at start).
    static func prometheusAddress(of server: ServeProcess) async throws -> String {
        let marker = "Prometheus metrics on "
        // The line is logged as the listener starts; the log writes a batch at most a second old.
        for _ in 0..<6_000 {
            if let line = server.standardError.split(separator: "\n").first(where: { $0.contains(marker) }),
               let range = line.range(of: marker) {
                return String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ServeProcessError("no Prometheus listener line in: \(server.standardError)")
    }

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), String(buffer: body))
    }
}
