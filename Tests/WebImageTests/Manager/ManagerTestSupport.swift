import Foundation
import TestImageServer
import Testing
@testable import WebImage

/// A manager wired to a loopback server, a downloader without retries, a cache in a temporary folder, and coders
/// that count their decodes.
struct ManagerHarness {
    let server: TestImageServer
    let downloader: ImageDownloader
    let folder: TemporaryFolder
    let coders: ImageCoders
    let counter: CountingCoder
    let cache: ImageCache
    let manager: ImageManager

    /// A second manager on the same disk folder with an empty memory cache (what the next process sees).
    func freshManager(configuration: ImageManager.Configuration = .init()) -> ImageManager {
        ImageManager(cache: ImageCache(folder: folder.url, coders: coders), loader: downloader, coders: coders,
                     configuration: configuration)
    }

    /// Runs `body` with a fresh harness, torn down afterwards.
    static func with<T>(configuration: ImageManager.Configuration = .init(),
                        isolation: isolated (any Actor)? = #isolation,
                        _ body: (ManagerHarness) async throws -> T) async throws -> T {
        let server = try await TestImageServer.start()
        let downloader = ImageDownloader(configuration: LoadingTest.configuration())
        let folder = try TemporaryFolder()
        let counter = CountingCoder()
        let coders = ImageCoders(coders: [counter])
        let cache = ImageCache(folder: folder.url, coders: coders)
        let harness = ManagerHarness(
            server: server, downloader: downloader, folder: folder, coders: coders, counter: counter, cache: cache,
            manager: ImageManager(cache: cache, loader: downloader, coders: coders, configuration: configuration))
        defer { folder.remove() }
        do {
            let result = try await body(harness)
            try? await downloader.shutdown()
            await server.shutdown()
            return result
        } catch {
            try? await downloader.shutdown()
            await server.shutdown()
            throw error
        }
    }
}

/// Decodes and encodes with the built-in coders and counts how often it is asked.
final class CountingCoder: ImageCoder {
    private let decodes = Locked(0)
    private let encodes = Locked(0)
    var decodeCount: Int { decodes.withLock { $0 } }
    var encodeCount: Int { encodes.withLock { $0 } }

    func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) != .unknown }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        decodes.withLock { $0 += 1 }
        return try ImageCoders.shared.decode(data, options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { true }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        encodes.withLock { $0 += 1 }
        return try ImageCoders.shared.encode(image, as: format, options: options)
    }
}

/// A transformer that fills the image with one colour and counts its runs.
final class CountingTransformer: ImageTransformer {
    let key: String
    let color: RGBA
    private let runs = Locked(0)
    var runCount: Int { runs.withLock { $0 } }

    init(key: String = "Paint", color: RGBA = RGBA(0, 0, 255)) {
        self.key = key
        self.color = color
    }

    func transform(_ image: Image) throws -> Image {
        runs.withLock { $0 += 1 }
        let frames = try image.frames.map { frame in
            ImageFrame(pixels: try PixelBuffer(width: frame.pixels.width, height: frame.pixels.height,
                                               filledWith: color), duration: frame.duration)
        }
        return Image(frames: frames, loopCount: image.loopCount, format: image.format, scale: image.scale,
                     flags: image.flags.union(.transformed))
    }
}

enum ManagerTest {
    /// A solid `width`×`height` PNG.
    static func png(_ color: RGBA, width: Int = 40, height: Int = 30) throws -> Data {
        try ImageCoders.shared.encode(Image(pixels: try PixelBuffer(width: width, height: height, filledWith: color)),
                                      as: .png)
    }
}
