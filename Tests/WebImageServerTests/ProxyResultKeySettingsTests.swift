import Foundation
import TestImageServer
import Testing
import WebImage
import WebImageRedis

@testable import WebImageServer

/// Servers whose settings would render other bytes never answer each other's results: not through one Redis, not
/// through one disk cache (a restart with new settings), while servers with equal settings still share them.
@Suite(.serialized) struct ProxyResultKeySettingsTests {
    /// A proxy on `harness`'s origin and caches (its folder, its Redis), with `adjust`ed settings.
    private static func peer(of harness: ProxyHarness, redis: Bool = true,
                             _ adjust: (inout ProxyConfiguration) -> Void) -> ImageProxy {
        var configuration = harness.proxy.configuration
        if !redis { configuration.redis = nil }
        adjust(&configuration)
        return ImageProxy(configuration: configuration)
    }

    private static func redisConfiguration(_ server: RedisServerProcess) throws -> RedisConfiguration {
        var configuration = try RedisConfiguration(url: server.url(password: nil))
        configuration.commandTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        return configuration
    }

    private static func get(_ proxy: ImageProxy, _ path: String) async -> ProxyResponse {
        await proxy.respond(to: ProxyRequest(method: "GET", path: path))
    }

    @Test func serversWithOtherQualitiesShareNeitherRedisNorTheDiskCache() async throws {
        let redis = try RedisServerProcess.start()
        let shared = try Self.redisConfiguration(redis)
        try await ProxyHarness.with(configuring: { $0.redis = shared; $0.quality = 95 }) { harness in
            _ = try await harness.proxy.connectSharedCache()
            let path = harness.plainPath(["w:200"], "photo.jpg")
            let fine = await harness.get(path)
            #expect(fine.status == 200)
            #expect(await harness.get(path).body == fine.body)  // asked again: now on disk too
            // Another server on the same Redis and folder, at quality 5: its own render, far smaller.
            let coarse = Self.peer(of: harness) { $0.quality = 5 }
            _ = try await coarse.connectSharedCache()
            let rough = await Self.get(coarse, path)
            #expect(rough.status == 200 && rough.body != fine.body)
            #expect(rough.body.readableBytes < fine.body.readableBytes / 2)
            #expect(coarse.renderingsStarted == 1)
            // Restarted at quality 5 over the same disk cache, without Redis: not the quality-95 result either.
            let restarted = Self.peer(of: harness, redis: false) { $0.quality = 5 }
            let again = await Self.get(restarted, path)
            #expect(again.body != fine.body && again.body == rough.body && restarted.renderingsStarted == 1)
            // Equal settings still share: a third server at 95 renders nothing.
            let twin = Self.peer(of: harness) { _ in }
            _ = try await twin.connectSharedCache()
            #expect(await Self.get(twin, path).body == fine.body)
            #expect(twin.renderingsStarted == 0)
            // A URL that names its quality does not depend on the server's: shared between both.
            let named = harness.plainPath(["w:200", "q:50"], "photo.jpg")
            let fifty = await harness.get(named)
            #expect(await Self.get(coarse, named).body == fifty.body)
            #expect(coarse.renderingsStarted == 1)
        }
    }

    @Test func formatQualityAndPreferredFormatsAreInTheKey() async throws {
        try await ProxyHarness.with { harness in
            let path = harness.plainPath(["w:120"], "photo.jpg")
            let first = await harness.get(path)
            #expect(first.status == 200 && first.header("Content-Type") == "image/jpeg")
            #expect(await harness.get(path).body == first.body)  // on disk now
            let webpOnly = Self.peer(of: harness) { $0.preferredFormats = [.webp] }
            let other = await Self.get(webpOnly, path)
            #expect(other.status == 200 && other.header("Content-Type") == "image/webp")
            #expect(webpOnly.renderingsStarted == 1)
            // The per-format quality of the answer's format.
            let webpPath = harness.plainPath(["w:120"], "photo.jpg", ext: "webp")
            let standard = await harness.get(webpPath)
            #expect(await harness.get(webpPath).body == standard.body)
            let lowWebP = Self.peer(of: harness) { $0.formatQuality[.webp] = 10 }
            let low = await Self.get(lowWebP, webpPath)
            #expect(low.status == 200 && low.body != standard.body && lowWebP.renderingsStarted == 1)
        }
    }

    @Test func serversWithOtherWatermarksDoNotShareWatermarkedResults() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let red = folder.appendingPathComponent("red.png"), blue = folder.appendingPathComponent("blue.png")
        try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: 8, height: 8, filledWith: RGBA(255, 0, 0))),
                                      as: .png).write(to: red)
        try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: 8, height: 8, filledWith: RGBA(0, 0, 255))),
                                      as: .png).write(to: blue)
        let redis = try RedisServerProcess.start()
        let shared = try Self.redisConfiguration(redis)
        try await ProxyHarness.with(configuring: { $0.redis = shared; $0.watermarkPath = red.path }) { harness in
            _ = try await harness.proxy.connectSharedCache()
            try await harness.proxy.loadWatermark()
            let path = harness.plainPath(["w:100", "wm:1:nowe"], "photo.jpg", ext: "png")
            let reddened = try ProxyHarness.decode(await harness.get(path)).pixels
            #expect(reddened[1, 1].r > 200 && reddened[1, 1].b < 50)
            let blued = Self.peer(of: harness) { $0.watermarkPath = blue.path }
            _ = try await blued.connectSharedCache()
            try await blued.loadWatermark()
            let answer = try ProxyHarness.decode(await Self.get(blued, path)).pixels
            #expect(answer[1, 1].b > 200 && answer[1, 1].r < 50)
            #expect(blued.renderingsStarted == 1)
            // A URL without a watermark does not depend on it: shared.
            let plain = harness.plainPath(["w:100"], "photo.jpg", ext: "png")
            #expect(await harness.get(plain).status == 200)
            #expect(await Self.get(blued, plain).status == 200 && blued.renderingsStarted == 1)
        }
    }
}
