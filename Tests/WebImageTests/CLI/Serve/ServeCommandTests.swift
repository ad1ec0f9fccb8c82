import Foundation
import Testing
import TestImageServer
import WebImage

/// `webimage serve` as users run it: a real process on loopback, its contract's flags and variables, its refusals
/// at start-up, and a graceful stop on SIGTERM.
@Suite struct ServeCommandTests {
    @Test func refusesToStartWithoutAKeyUnlessInsecure() async throws {
        let bare = try await CommandLineTool.run(["serve", "--bind", "127.0.0.1:0"])
        #expect(bare.status != 0)
        #expect(bare.errorLines.count == 1 && bare.stderr.contains("--insecure"))
        let half = try await CommandLineTool.run(["serve", "--key", "aa"])
        #expect(half.status != 0 && half.stderr.contains("--key and --salt go together"))
        let odd = try await CommandLineTool.run(["serve", "--key", "abc", "--salt", "00"])
        #expect(odd.status != 0 && odd.stderr.contains("hex"))
        let badBind = try await CommandLineTool.run(["serve", "--insecure", "--bind", "nowhere"])
        #expect(badBind.status != 0 && badBind.stderr.contains("HOST:PORT"))
    }

    @Test func refusesADNSServerThatIsNotAnAddressAndPort() async throws {
        for value in ["dns.example:53", "127.0.0.1:x", "127.0.0.1:0"] {
            let result = try await CommandLineTool.run(["serve", "--insecure", "--bind", "127.0.0.1:0",
                                                        "--dns-server", value])
            #expect(result.status != 0 && result.errorLines.count == 1 && result.stderr.contains("--dns-server"))
        }
    }

    @Test func refusesABadRedisURLOrPasswordAtStartUp() async throws {
        let scheme = try await CommandLineTool.run(["serve", "--insecure", "--bind", "127.0.0.1:0", "--redis", "http://h"])
        #expect(scheme.status != 0 && scheme.stderr.contains("--redis") && scheme.stderr.contains("redis://"))
        let redis = try RedisServerProcess.start(arguments: ["--requirepass", "right"])
        let wrong = try await CommandLineTool.run(["serve", "--insecure", "--bind", "127.0.0.1:0",
                                                   "--redis", redis.url(password: "wrong")])
        #expect(wrong.status != 0 && wrong.stderr.contains("refused the credentials"))
        #expect(!wrong.stderr.contains("wrong@"))  // the password is not echoed
    }

    @Test func servesSignedURLsAndStopsGracefullyOnSIGTERM() async throws {
        let origin = try await TestImageServer.start()
        let pixels = try PixelBuffer(width: 80, height: 60, filledWith: RGBA(10, 200, 30))
        origin.serve("a.png", data: try ImageCoders.shared.encode(Image(pixels: pixels), as: .png),
                     contentType: "image/png")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The key comes from the environment, the salt from a flag: both ways are the contract.
        let server = try await ServeProcess.start(
            // Generous timeouts: the request waits at the origin's gate while the test signals the server.
            ["--bind", "127.0.0.1:0", "--salt", "68656c6c6f", "--cache-dir", folder.path,
             "--download-timeout", "600", "--request-timeout", "600"],
            environment: ["WEBIMAGE_KEY": "736563726574", "WEBIMAGE_ALLOW_LOOPBACK_SOURCES": "1"])
        #expect(server.address.hasPrefix("http://127.0.0.1:"))
        #expect(server.standardOutput.split(separator: "\n").count == 1)

        let source = origin.url("/gate/open/a.png").absoluteString
        let signedPart = "/rs:fit:40:40/plain/" + source + "@webp"
        let signature = try Self.signature(signedPart, keyHex: "736563726574", saltHex: "68656c6c6f")
        origin.closeGate("open")
        async let inFlight = server.get("/" + signature + signedPart)
        #expect(await origin.waitUntil { $0.count("/gate/open/a.png") == 1 })
        // SIGTERM with a request in flight: new connections are refused from then on, and the request in flight
        // is still answered before the process exits.
        let exit = Task { await server.terminate() }
        var refused = false
        for _ in 0..<6_000 where !refused {
            refused = !server.acceptsConnections()
            if !refused { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(refused)
        origin.openGate("open")
        let answer = try await inFlight
        #expect(answer.status == 200)
        #expect(answer.headers.contains { $0.0.lowercased() == "content-type" && $0.1 == "image/webp" })
        #expect(try ImageCoders.shared.decode(answer.body).size == PixelSize(width: 40, height: 30))
        #expect(await exit.value == 0)
        await origin.shutdown()
    }

    @Test func aWrongSignatureIs403AndHealthIs200() async throws {
        let server = try await ServeProcess.start(["--bind", "127.0.0.1:0", "--key", "00ff", "--salt", "ff00"])
        let health = try await server.get("/health")
        #expect(health.status == 200)
        // HEAD says how long the GET's body is, and sends none.
        let head = try await server.get("/health", head: true)
        #expect(head.status == 200 && head.body.isEmpty)
        let lengths: [String] = head.headers.filter { $0.0.lowercased() == "content-length" }.map { $0.1 }
        #expect(lengths == [String(health.body.count)])
        let wrong = try await server.get("/AAAA/w:10/plain/http://example.com/a.jpg")
        #expect(wrong.status == 403)
        #expect(String(decoding: wrong.body, as: UTF8.self).contains("signature"))
        #expect(await server.terminate() == 0)
    }

    /// An imgproxy presets file (presets naming presets) starts the server; with `--only-presets` URLs name them
    /// in imgproxy's `/SIGNATURE/PRESET:PRESET/…` form, and a signed path a CDN rewrote (`%3A` for `:`,
    /// `http:/` for `http://`) still passes the signature check.
    @Test func startsWithAnImgproxyPresetsFileAndServesOnlyPresetsURLs() async throws {
        let origin = try await TestImageServer.start()
        let pixels = try PixelBuffer(width: 80, height: 60, filledWith: RGBA(10, 200, 30))
        origin.serve("a.jpg", data: try ImageCoders.shared.encode(Image(pixels: pixels), as: .jpeg),
                     contentType: "image/jpeg")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let presets = folder.appendingPathComponent("presets.txt")
        try "# imgproxy's format\nsmall=rs:fit:40:40\nthumb=pr:small/q:70\npngify=f:png\n"
            .write(to: presets, atomically: true, encoding: .utf8)
        let server = try await ServeProcess.start(
            ["--bind", "127.0.0.1:0", "--key", "736563726574", "--salt", "68656c6c6f", "--presets", presets.path,
             "--only-presets", "--cache-dir", folder.path, "--allow-loopback-sources"])
        let source = origin.url("/files/a.jpg").absoluteString
        let signedPart = "/thumb:pngify/plain/" + source
        let signature = try Self.signature(signedPart, keyHex: "736563726574", saltHex: "68656c6c6f")
        let answer = try await server.get("/" + signature + signedPart)
        #expect(answer.status == 200)
        #expect(answer.headers.contains { $0.0.lowercased() == "content-type" && $0.1 == "image/png" })
        #expect(try ImageCoders.shared.decode(answer.body).size == PixelSize(width: 40, height: 30))
        let rewritten = "/" + signature + "/thumb%3Apngify/plain/" + source.replacingOccurrences(of: "://", with: ":/")
        #expect(try await server.get(rewritten).status == 200)
        let options = try await server.get("/" + signature + "/w:10/plain/" + source)
        #expect(options.status == 403 || options.status == 404)  // signed for another path, or an unknown preset
        #expect(await server.terminate() == 0)
        let bad = try await CommandLineTool.run(["serve", "--insecure", "--bind", "127.0.0.1:0",
                                                 "--format-quality", "webp=101"])
        #expect(bad.status != 0 && bad.stderr.contains("--format-quality"))
        await origin.shutdown()
    }

    /// imgproxy's server settings as flags and variables: client hints read from real request headers, SVG
    /// sources rasterised, HEIC thumbnails enforced (decoded by the helpers), 16-bit sources kept 16-bit; a
    /// watermark opacity out of range stops the server from starting.
    @Test func imgproxysServerSettingsReachTheProxy() async throws {
        let origin = try await TestImageServer.start()
        let pixels = try PixelBuffer(width: 80, height: 60, filledWith: RGBA(10, 200, 30))
        origin.serve("a.png", data: try ImageCoders.shared.encode(Image(pixels: pixels), as: .png),
                     contentType: "image/png")
        origin.serve("icon.svg", data: Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"/>"#.utf8),
                     contentType: "image/svg+xml")
        origin.serve("thumb.heic", data: try IsolationFixtures.heic("thumb"), contentType: "image/heic")
        var samples: [UInt16] = []
        for index in 0..<512 {
            let red = UInt16(index * 127), green = UInt16(65_535 - index * 61)
            samples += [red, green, UInt16(index * 29 + 3), 65_535]
        }
        let ramp = try DeepPixelBuffer(width: 64, height: 8, samples: samples)
        let deepPNG = try ImageCoders.shared.encode(Image(frames: [ImageFrame(deep: ramp)]), as: .png)
        origin.serve("deep.png", data: deepPNG, contentType: "image/png")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--insecure", "--bind", "127.0.0.1:0", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--enable-client-hints", "--always-rasterize-svg", "--watermark-opacity", "0.5", "--preserve-hdr"],
            environment: ["WEBIMAGE_ENFORCE_THUMBNAIL": "1"])
        func path(_ options: String, _ name: String) -> String {
            "/_" + options + "/plain/" + origin.url("/files/\(name)").absoluteString
        }
        func header(_ answer: (status: Int, headers: [(String, String)], body: Data), _ name: String) -> String? {
            answer.headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        let hinted = try await server.get(path("", "a.png"), headers: [("Sec-CH-DPR", "2"), ("Width", "40")])
        #expect(hinted.status == 200 && header(hinted, "Vary") == "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
        #expect(try ImageCoders.shared.decode(hinted.body).size == PixelSize(width: 40, height: 30))
        let svg = try await server.get(path("", "icon.svg"))
        #expect(svg.status == 200 && header(svg, "Content-Type") == "image/png")
        let thumbnail = try await server.get(path("", "thumb.heic") + "@png")
        #expect(try ImageCoders.shared.decode(thumbnail.body).size == PixelSize(width: 40, height: 30))
        let full = try await server.get(path("/eth:0", "thumb.heic") + "@png")
        #expect(try ImageCoders.shared.decode(full.body).size == PixelSize(width: 160, height: 120))
        // --preserve-hdr: a 16-bit source answers a 16-bit PNG unless the URL says ph:0 (IHDR's bit depth byte).
        let deep = try await server.get(path("/w:32", "deep.png") + "@png")
        #expect(deep.status == 200 && deep.body[24] == 16)
        let eightBit = try await server.get(path("/w:32/ph:0", "deep.png") + "@png")
        #expect(eightBit.status == 200 && eightBit.body[24] == 8)
        #expect(await server.terminate() == 0)

        let help = try await CommandLineTool.run(["serve", "--help"])
        for flag in ["--enable-client-hints", "--always-rasterize-svg", "--watermark-opacity", "--enforce-thumbnail",
                     "--preserve-hdr"] {
            #expect(help.stdout.contains(flag), "\(flag)")
        }
        for opacity in ["1.5", "0", "-1"] {
            let refused = try await CommandLineTool.run(["serve", "--insecure", "--bind", "127.0.0.1:0",
                                                         "--watermark-opacity=" + opacity])
            #expect(refused.status != 0 && refused.stderr.contains("--watermark-opacity"), "\(opacity)")
        }
        await origin.shutdown()
    }

    /// imgproxy's signature, computed here independently with Python's hmac module's rules: HMAC-SHA256 over
    /// salt ‖ path, URL-safe Base64 without padding (written with Foundation only, not the server's code).
    static func signature(_ path: String, keyHex: String, saltHex: String) throws -> String {
        let python = """
            import base64, hashlib, hmac, sys
            key, salt, path = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3].encode()
            print(base64.urlsafe_b64encode(hmac.new(key, salt + path, hashlib.sha256).digest()).rstrip(b"=").decode())
            """
        let process = try SpawnedProcess("/usr/bin/python3", ["-c", python, keyHex, saltHex, path], output: .pipe)
        let output = try #require(process.outputPipe).readDataToEndOfFile()
        _ = process.waitBlocking()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
