import AsyncHTTPClient
import CoderTestSupport
import Foundation
import Testing
import WebImage

/// `webimage serve` started as an imgproxy deployment starts imgproxy: no flags, only imgproxy's variables (and
/// AWS's for the bucket) — two key/salt pairs, an S3 bucket on a real S3 API with its authentication on, a local
/// root, a fallback image, CORS, a secret, a path prefix, a Prometheus bind, JSON logs and OpenTelemetry traces —
/// and every one of them acting on the answers.
@Suite struct ServeImgproxyDeploymentTests {
    static let keys = ["6b6579206f6e65", "6b65792074776f"]  // "key one", "key two"
    static let salts = ["73616c74206f6e65", "73616c742074776f"]

    static func png(_ colour: RGBA, width: Int, height: Int) throws -> Data {
        try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: width, height: height, filledWith: colour)),
                                      as: .png)
    }

    /// `/img/SIGNATURE/OPTIONS/plain/SOURCE@png`, signed with pair `pair` (the prefix is not signed, as imgproxy's).
    static func path(_ options: String, _ source: String, pair: Int) throws -> String {
        let signed = "/\(options)/plain/\(source)@png"
        return "/img/" + (try ServeCommandTests.signature(signed, keyHex: keys[pair], saltHex: salts[pair])) + signed
    }

    @Test func anImgproxyEnvironmentAloneServesEveryKindOfSource() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.png(RGBA(0, 0, 255), width: 80, height: 40).write(to: root.appendingPathComponent("blue.png"))
        let fallback = try Self.png(RGBA(255, 0, 255), width: 60, height: 60)

        let bucketImage = try Self.png(RGBA(0, 200, 0), width: 120, height: 60)
        try await OTLPCollector.with { collector in
            try await MotoS3.with(bucket: "photos", objects: ["green.png": bucketImage]) { moto in
                let server = try await ServeProcess.start([], environment: [
                    "IMGPROXY_BIND": "127.0.0.1:0",
                    "IMGPROXY_KEY": Self.keys.joined(separator: ","),
                    "IMGPROXY_SALT": Self.salts.joined(separator: ","),
                    "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": moto.endpoint.absoluteString,
                    "IMGPROXY_S3_REGION": "us-east-1",
                    "AWS_ACCESS_KEY_ID": moto.accessKeyID, "AWS_SECRET_ACCESS_KEY": moto.secretAccessKey,
                    "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.path,
                    "IMGPROXY_FALLBACK_IMAGE_DATA": fallback.base64EncodedString(),
                    "IMGPROXY_ALLOW_ORIGIN": "https://app.example",
                    "IMGPROXY_SECRET": "bearer-secret", "IMGPROXY_PATH_PREFIX": "/img",
                    "IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:0", "IMGPROXY_LOG_FORMAT": "json",
                    // The collector's base URL: the traces path is added, as the SDKs add it.
                    "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.endpoint.port!)",
                    "OTEL_SERVICE_NAME": "imgproxy",
                    // Not imgproxy's (it keeps no cache): where a container keeps ours, as the Dockerfile sets it.
                    "WEBIMAGE_CACHE_DIR": folder.appendingPathComponent("cache").path,
                ])
                let secret = [("Authorization", "Bearer bearer-secret"), ("Origin", "https://app.example")]

                // The bucket's object, signed with the second pair; the local file, with the first.
                let fromBucket = try await server.get(try Self.path("rs:fit:60:60", "s3://photos/green.png", pair: 1),
                                                      headers: secret)
                #expect(fromBucket.status == 200, "\(String(decoding: fromBucket.body, as: UTF8.self))")
                let bucketPixels = try ImageCoders.shared.decode(fromBucket.body)
                #expect(bucketPixels.size == PixelSize(width: 60, height: 30))
                #expect(bucketPixels.frames.first?.pixels[30, 15] == RGBA(0, 200, 0))
                #expect(fromBucket.headers.first { $0.0.lowercased() == "access-control-allow-origin" }?.1
                    == "https://app.example")
                let fromRoot = try await server.get(try Self.path("rs:fit:40:40", "local:///blue.png", pair: 0),
                                                    headers: secret)
                #expect(fromRoot.status == 200)
                let rootPixels = try ImageCoders.shared.decode(fromRoot.body)
                #expect(rootPixels.size == PixelSize(width: 40, height: 20))
                #expect(rootPixels.frames.first?.pixels[20, 10] == RGBA(0, 0, 255))

                // A missing object and a missing file are answered with the fallback, resized as asked.
                for source in ["s3://photos/missing.png", "local:///missing.png"] {
                    let missing = try await server.get(try Self.path("rs:fit:30:30", source, pair: 0), headers: secret)
                    #expect(missing.status == 200, "\(source)")
                    let pixels = try ImageCoders.shared.decode(missing.body)
                    #expect(pixels.size == PixelSize(width: 30, height: 30), "\(source)")
                    #expect(pixels.frames.first?.pixels[15, 15] == RGBA(255, 0, 255), "\(source)")
                }

                // Without the secret: 403, and nothing is fetched; a signature of neither pair: 403; outside the
                // prefix: 404. The health path needs neither secret nor signature.
                let path = try Self.path("rs:fit:60:60", "s3://photos/green.png", pair: 1)
                #expect(try await server.get(path).status == 403)
                let forged = path.replacingOccurrences(of: "/img/", with: "/img/AAAA")
                #expect(try await server.get(forged, headers: secret).status == 403)
                #expect(try await server.get(String(path.dropFirst("/img".count)), headers: secret).status == 404)
                #expect(try await server.get("/img/health").status == 200)

                // A CORS preflight is answered without the secret, as a browser sends none with it.
                var preflight = HTTPClientRequest(url: server.address + path)
                preflight.method = .OPTIONS
                preflight.headers.add(name: "Origin", value: "https://app.example")
                preflight.headers.add(name: "Access-Control-Request-Method", value: "GET")
                let answer = try await HTTPClient.shared.execute(preflight, timeout: .seconds(600))
                #expect(answer.status.code == 200)
                #expect(answer.headers["Access-Control-Allow-Origin"] == ["https://app.example"])

                // imgproxy's metrics on their own bind: the four images answered 200 (two sources, two fallbacks).
                let metricsAddress = try await Self.prometheusAddress(of: server)
                let scrape = try await ServeOperationsTests.get(metricsAddress + "/metrics")
                #expect(scrape.status == 200)
                let served = scrape.body.split(separator: "\n")
                    .first { $0.hasPrefix("status_codes_total{status=\"200\"} ") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
                #expect(served == 4, "\(scrape.body)")

                #expect(await server.terminate() == 0)
                // Traces, sent at the graceful stop: the four images' spans (the prefix's and the secret's refusals
                // too, not the health probe's), each render with its five steps.
                let spans = try collector.spans()
                let images = spans.filter {
                    $0.name == "/request" && $0.attributes["http.request.method"] == .string("GET")
                        && $0.attributes["http.response.status_code"] == .number(200)
                }
                #expect(images.count == 4)
                #expect(images.allSatisfy { $0.resource["service.name"] == .string("imgproxy") })
                #expect(!spans.contains { $0.attributes["url.path"] == .string("/img/health") })
                for image in images {
                    let steps = spans.filter { $0.parentSpanId == image.spanId }.map(\.name)
                    #expect(steps.contains("downloading_image") && steps.contains("encoding_image"), "\(steps)")
                }
                // The two missing sources' downloads end in error (the fallback then answered).
                #expect(spans.filter { $0.name == "downloading_image" && $0.statusCode == 2 }.count == 2)
                // JSON logs: every line on stderr is one JSON object, the access lines and warnings included.
                let lines = server.standardError.split(separator: "\n")
                #expect(lines.count >= 4)
                for line in lines {
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    #expect(object?["msg"] != nil, "not a JSON log line: \(line)")
                }
            }
        }
    }

    /// The Prometheus listener's address, from the JSON log line that names it (the log writes a batch at most a
    /// second old).
    static func prometheusAddress(of server: ServeProcess) async throws -> String {
        let marker = "Prometheus metrics on "
        for _ in 0..<6_000 {
            for line in server.standardError.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let message = object["msg"] as? String, let range = message.range(of: marker) else { continue }
                return String(message[range.upperBound...])
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ServeProcessError("no Prometheus listener line in: \(server.standardError)")
    }
}
