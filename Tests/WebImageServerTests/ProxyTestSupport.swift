import Foundation
import TestImageServer
import WebImage

@testable import WebImageServer

/// A proxy in front of a loopback origin, with images made in the test (no fixtures needed), and helpers that
/// build imgproxy URLs.
struct ProxyHarness {
    let origin: TestImageServer
    let proxy: ImageProxy
    let folder: URL

    /// Runs `body` with a fresh origin and proxy, stopping both afterwards, whatever `body` does.
    static func with(configuring adjust: (inout ProxyConfiguration) -> Void = { _ in }, coders: ImageCoders = .shared,
                     _ body: (ProxyHarness) async throws -> Void) async throws {
        let harness = try await start(adjust, coders: coders)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    static func start(_ adjust: (inout ProxyConfiguration) -> Void = { _ in }, coders: ImageCoders = .shared)
        async throws -> ProxyHarness
    {
        let origin = try await TestImageServer.start()
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-proxy-\(UUID().uuidString)", isDirectory: true)
        var configuration = ProxyConfiguration()
        configuration.allowsLoopbackSources = true
        configuration.cacheDirectory = folder
        configuration.port = 0
        // Generous: these tests check behaviour, and under sanitizers beside other tests a loopback download can
        // take seconds. The timeout test sets its own.
        configuration.downloadTimeout = .seconds(120)
        configuration.requestTimeout = .seconds(120)
        adjust(&configuration)
        origin.serve("photo.jpg", data: try Self.photo(width: 400, height: 300, as: .jpeg), contentType: "image/jpeg")
        origin.serve("logo.png", data: try Self.photo(width: 64, height: 48, as: .png, alpha: true),
                     contentType: "image/png")
        origin.serve("anim.gif", data: try Self.animation(), contentType: "image/gif")
        origin.serve("text.txt", data: Data("not an image".utf8), contentType: "image/jpeg")
        return ProxyHarness(origin: origin, proxy: ImageProxy(configuration: configuration, coders: coders),
                            folder: folder)
    }

    func stop() async {
        await origin.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    /// `/_/OPTIONS/plain/SOURCE@EXT` for the origin's file `name`.
    func plainPath(_ options: [String], _ name: String, path: String = "/files/", ext: String? = nil) -> String {
        let source = origin.url(path + name).absoluteString
        let encoded = source.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        return "/_" + options.map { "/" + $0 }.joined() + "/plain/" + encoded + (ext.map { "@" + $0 } ?? "")
    }

    func get(_ path: String, accept: String? = nil, ifNoneMatch: String? = nil,
             clientHints: ClientHints = ClientHints()) async -> ProxyResponse {
        await proxy.respond(to: ProxyRequest(method: "GET", path: path, accept: accept, ifNoneMatch: ifNoneMatch,
                                             clientHints: clientHints))
    }

    /// A gradient with a few hard edges, `width` × `height`, encoded as `format`.
    static func photo(width: Int, height: Int, as format: ImageFormat, alpha: Bool = false) throws -> Data {
        let pixels = try PixelBuffer(width: width, height: height) { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    bytes[offset] = UInt8(x * 255 / max(1, width - 1))
                    bytes[offset + 1] = UInt8(y * 255 / max(1, height - 1))
                    bytes[offset + 2] = (x / 16 + y / 16) % 2 == 0 ? 40 : 200
                    bytes[offset + 3] = alpha && x < width / 4 ? 0 : 255
                }
            }
        }
        return try ImageCoders.shared.encode(Image(pixels: pixels), as: format,
                                             options: EncodeOptions(quality: 0.95))
    }

    /// A three-frame 60×40 animation, a GIF unless told (WebP is lossless): red, green, blue, 100 ms each.
    static func animation(as format: ImageFormat = .gif) throws -> Data {
        let frames = try [RGBA(255, 0, 0), RGBA(0, 255, 0), RGBA(0, 0, 255)].map { color in
            ImageFrame(pixels: try PixelBuffer(width: 60, height: 40, filledWith: color), duration: 0.1)
        }
        return try ImageCoders.shared.encode(Image(frames: frames, loopCount: 0), as: format,
                                             options: EncodeOptions(lossless: format == .webp))
    }

    /// The response body decoded.
    static func decode(_ response: ProxyResponse) throws -> Image {
        try ImageCoders.shared.decode(response.bodyData)
    }
}
