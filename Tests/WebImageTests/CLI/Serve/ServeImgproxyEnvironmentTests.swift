import Foundation
import Testing
import TestImageServer
import WebImage

/// The real `webimage serve` started with no flags of its own, only an imgproxy deployment's settings (two
/// key/salt pairs, the bind address, loopback sources, a quality, a maximum resolution): once from the environment,
/// once from an env file. Either pair's URLs answer, a third pair's are refused, the resolution and quality
/// settings change the answers.
@Suite struct ServeImgproxyEnvironmentTests {
    static let pairs = [(key: "736563726574", salt: "68656c6c6f"),
                        (key: "6b6579322d726f7461746564", salt: "73616c7432")]
    static let stranger = (key: "746869726420706169722d", salt: "73616c7433")
    static let imgproxyEnvironment = [
        "IMGPROXY_KEY": pairs.map(\.key).joined(separator: ","),
        "IMGPROXY_SALT": pairs.map(\.salt).joined(separator: ","),
        "IMGPROXY_BIND": "127.0.0.1:0",
        "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
        "IMGPROXY_QUALITY": "10",
        "IMGPROXY_MAX_SRC_RESOLUTION": "0.01",  // 10 000 pixels
        "IMGPROXY_NEW_RELIC_KEY": "abc",  // a feature that is not here: named on stderr, not refused
    ]

    @Test func startsFromAnImgproxyEnvironment() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The cache folder is the test's own (our variable); every setting under test is imgproxy's.
        let server = try await ServeProcess.start(
            [], environment: Self.imgproxyEnvironment.merging(["WEBIMAGE_CACHE_DIR": folder.path]) { $1 })
        try await checkAnswers(server)
    }

    @Test func startsFromAnImgproxyEnvFile() async throws {
        let folder = try CommandLineTool.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("imgproxy.env")
        let lines = Self.imgproxyEnvironment.sorted { $0.key < $1.key }.enumerated().map { index, variable in
            // The spellings env files use: plain, `export`, quoted.
            switch index % 3 {
            case 0: "\(variable.key)=\(variable.value)"
            case 1: "export \(variable.key)=\"\(variable.value)\""
            default: "\(variable.key)='\(variable.value)'  # set by the deployment"
            }
        }
        try (["# imgproxy's settings", ""] + lines).joined(separator: "\n").write(to: file, atomically: true,
                                                                                    encoding: .utf8)
        let server = try await ServeProcess.start(["--env-file", file.path],
                                                  environment: ["WEBIMAGE_CACHE_DIR": folder.path])
        try await checkAnswers(server)
    }

    private func checkAnswers(_ server: ServeProcess) async throws {
        let origin = try await TestImageServer.start()
        let small = try PixelBuffer(width: 80, height: 60, filledWith: RGBA(200, 40, 90))
        origin.serve("small.png", data: try ImageCoders.shared.encode(Image(pixels: small), as: .png),
                     contentType: "image/png")
        let large = try PixelBuffer(width: 200, height: 100, filledWith: RGBA(20, 40, 190))
        origin.serve("large.png", data: try ImageCoders.shared.encode(Image(pixels: large), as: .png),
                     contentType: "image/png")
        func get(_ options: String, _ name: String, key: String, salt: String) async throws
            -> (status: Int, headers: [(String, String)], body: Data)
        {
            let path = "/\(options)/plain/" + origin.url("/files/\(name)").absoluteString + "@jpg"
            return try await server.get("/" + (try ServeCommandTests.signature(path, keyHex: key, saltHex: salt)) + path)
        }

        let first = try await get("rs:fit:40:40", "small.png", key: Self.pairs[0].key, salt: Self.pairs[0].salt)
        #expect(first.status == 200, "\(String(decoding: first.body.prefix(200), as: UTF8.self))")
        #expect(try ImageCoders.shared.decode(first.body).size == PixelSize(width: 40, height: 30))
        let second = try await get("rs:fit:40:40", "small.png", key: Self.pairs[1].key, salt: Self.pairs[1].salt)
        #expect(second.status == 200 && second.body == first.body)
        let stranger = try await get("rs:fit:40:40", "small.png", key: Self.stranger.key, salt: Self.stranger.salt)
        #expect(stranger.status == 403)
        // 20 000 pixels against IMGPROXY_MAX_SRC_RESOLUTION's 10 000.
        let tooLarge = try await get("rs:fit:40:40", "large.png", key: Self.pairs[0].key, salt: Self.pairs[0].salt)
        #expect(tooLarge.status == 422)
        // IMGPROXY_QUALITY=10 is the quality of a URL that gives none: the bytes of q:10, not of q:80.
        let tenth = try await get("q:10/rs:fit:40:40", "small.png", key: Self.pairs[1].key, salt: Self.pairs[1].salt)
        let eightieth = try await get("q:80/rs:fit:40:40", "small.png", key: Self.pairs[0].key,
                                      salt: Self.pairs[0].salt)
        #expect(tenth.status == 200 && eightieth.status == 200)
        #expect(first.body == tenth.body)
        #expect(first.body != eightieth.body)

        let warnings = server.standardError.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings == ["warning: IMGPROXY_NEW_RELIC_KEY is not supported by webimage serve (yet): ignored"])
        #expect(await server.terminate() == 0)
        await origin.shutdown()
    }
}
