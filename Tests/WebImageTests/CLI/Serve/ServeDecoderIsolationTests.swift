import Foundation
import Testing
import TestImageServer
import WebImage

/// `webimage serve` with its decoders isolated (the default): a source that crashes its decoder costs that
/// request a 422 and one helper, never the server.
@Suite struct ServeDecoderIsolationTests {
    @Test func aSourceThatCrashesItsDecoderGets422AndTheServerKeepsServing() async throws {
        let origin = try await TestImageServer.start()
        origin.serve("crash.heic", data: try IsolationFixtures.crashingHEIC(), contentType: "image/heic")
        origin.serve("photo.heic", data: try IsolationFixtures.heic("photo"), contentType: "image/heic")
        let pixels = try PixelBuffer(width: 80, height: 60, filledWith: RGBA(10, 200, 30))
        origin.serve("a.png", data: try ImageCoders.shared.encode(Image(pixels: pixels), as: .png),
                     contentType: "image/png")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            // A timeout long enough for the crash to be a crash (SIGSEGV) even on a loaded machine, and a failure
            // remembered long enough to outlast the requests between its two asks (under ThreadSanitizer they took
            // over the default 10 s, and the failure was fetched and decoded again).
            ["--insecure", "--bind", "127.0.0.1:0", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--workers", "2", "--decode-timeout", "600", "--request-timeout", "600", "--failure-ttl", "600"])
        func path(_ name: String) -> String {
            "/_/rs:fit:40:40/plain/" + origin.url("/files/\(name)").absoluteString + "@png"
        }

        let crashed = try await server.get(path("crash.heic"))
        #expect(crashed.status == 422)
        #expect(server.process.isRunning)
        let heic = try await server.get(path("photo.heic"))
        #expect(heic.status == 200)
        #expect(ImageFormat.detect(heic.body) == .png)
        #expect(try await server.get(path("a.png")).status == 200)
        // The same URL again is answered from the remembered failure; another size of the same source is fetched
        // again (a source that fails to decode is not cached) and crashes another helper: another 422.
        #expect(try await server.get(path("crash.heic")).status == 422)
        let otherSize = path("crash.heic").replacingOccurrences(of: "rs:fit:40:40", with: "rs:fit:30:30")
        #expect(try await server.get(otherSize).status == 422)
        #expect(server.process.isRunning)
        let replaced = server.standardError.split(separator: "\n").filter { $0.contains("decode helper replaced") }
        #expect(replaced.count == 2)
        // A sanitizer catches the stack overflow itself and ends the helper its own way.
        #expect(replaced.allSatisfy { $0.contains("signal 11") || IsolationFixtures.runsUnderASanitizer })
        let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        #expect(metrics.split(separator: "\n").contains("webimage_decode_helper_restarts_total 2"))
        #expect(await server.terminate() == 0)
    }

    @Test func aHelperKilledWhileIdleIsReplacedAndTheNextRequestIsServed() async throws {
        let origin = try await TestImageServer.start()
        origin.serve("photo.heic", data: try IsolationFixtures.heic("photo"), contentType: "image/heic")
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(
            ["--insecure", "--bind", "127.0.0.1:0", "--allow-loopback-sources", "--cache-dir", folder.path,
             "--decode-helpers", "1"])
        let helpers = Self.helpers(of: server.process.pid)
        try #require(helpers.count == 1)
        #expect(kill(helpers[0], SIGKILL) == 0)  // as the kernel's OOM killer would
        // Wait for it to be dead (a zombie until the server reaps it), so the request meets a dead helper.
        for _ in 0..<1_000 where Self.state(of: helpers[0]) != "Z" { try await Task.sleep(for: .milliseconds(10)) }
        let path = "/_/rs:fit:40:40/plain/" + origin.url("/files/photo.heic").absoluteString + "@png"
        #expect(try await server.get(path).status == 200)
        #expect(server.standardError.contains("decode helper replaced: the decoder ended while idle"))
        #expect(await server.terminate() == 0)
    }

    @Test func isolationCanBeTurnedOffByFlagOrVariable() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (arguments, environment) in [(["--no-isolate-decoders"], [:]), ([], ["WEBIMAGE_ISOLATE_DECODERS": "0"])] {
            let server = try await ServeProcess.start(
                ["--insecure", "--bind", "127.0.0.1:0", "--cache-dir", folder.path] + arguments,
                environment: environment)
            #expect(Self.helperCount(of: server.process.pid) == 0)
            #expect(await server.terminate() == 0)
        }
        let isolated = try await ServeProcess.start(
            ["--insecure", "--bind", "127.0.0.1:0", "--cache-dir", folder.path, "--decode-helpers", "3"])
        #expect(Self.helperCount(of: isolated.process.pid) == 3)
        #expect(await isolated.terminate() == 0)
        let wrong = try await CommandLineTool.run(
            ["serve", "--insecure", "--bind", "127.0.0.1:0", "--decode-timeout", "0"])
        #expect(wrong.status != 0 && wrong.stderr.contains("--decode-timeout must be at least 1"))
    }

    @Test func theHelperCommandIsHiddenFromHelp() async throws {
        let help = try await CommandLineTool.run(["--help"])
        #expect(help.status == 0 && !help.stdout.contains("_decode-helper"))
    }

    /// The one-letter state of process `pid` ("R", "S", "Z"…), from /proc; `nil` once it is gone.
    static func state(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards) else { return nil }
        return stat[afterName.upperBound...].split(separator: " ").first.map(String.init)
    }

    /// The children of `pid` running `webimage _decode-helper`, read from /proc.
    static func helperCount(of pid: Int32) -> Int { helpers(of: pid).count }

    static func helpers(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { entry in
            guard Int32(entry) != nil,
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let afterName = stat.range(of: ") ", options: .backwards) else { return false }
            let fields = stat[afterName.upperBound...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == pid,
                  let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")) else {
                return false
            }
            return String(decoding: command, as: UTF8.self).contains("_decode-helper")
        }.compactMap { Int32($0) }
    }
}
