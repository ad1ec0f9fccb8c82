import Foundation
import CoderTestSupport
import Testing
import WebImage

@testable import WebImageServer

/// A small render of a large progressive JPEG fetches only the start of the source; anything needing more
/// fetches it whole, and a prefix is never kept as the source.
@Suite struct ProxyEarlyStopTests {
    /// A 2400×1800 photo-like progressive JPEG: smooth colour under fine grain, so most bytes are luma detail.
    static func grainyProgressivePhoto() throws -> Data {
        try GrainyPhoto.jpeg(width: 2400, height: 1800, progressive: true)
    }

    @Test func aThumbnailRenderFetchesAFifthAndAFullRenderFetchesItAll() async throws {
        let source = try Self.grainyProgressivePhoto()
        try await ProxyHarness.with { harness in
            harness.origin.serve("big.jpg", data: source, contentType: "image/jpeg")
            // The first answer from the origin is a fifth of the file, then nothing until the proxy leaves: the
            // render can only succeed if that was enough. Later answers are the whole file.
            let name = "big.jpg?after=\(source.count / 5)"
            let originPath = "/stall-once/big.jpg"

            // 300 px wide: TurboJPEG's 1/8 scale (300×225) is the decode, which the first scans hold.
            let small = await harness.get(harness.plainPath(["rs:fit:300:0"], name, path: "/stall-once/", ext: "png"))
            #expect(small.status == 200)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: originPath).map(\.bodyBytesSent) == [source.count / 5])
            #expect(harness.origin.log.clientClosedPaths == [originPath])
            let thumbnail = try ProxyHarness.decode(small)
            #expect(thumbnail.size == PixelSize(width: 300, height: 225))

            // Another small size decodes at 1/8 too: the start kept in memory serves it, without the origin.
            let smaller = await harness.get(harness.plainPath(["rs:fit:200:0"], name, path: "/stall-once/", ext: "png"))
            #expect(smaller.status == 200)
            #expect(try ProxyHarness.decode(smaller).size == PixelSize(width: 200, height: 150))
            #expect(harness.origin.log.count(originPath) == 1)

            // The full size needs every byte: the start is not enough, so the origin is asked again, whole.
            let full = await harness.get(harness.plainPath(["rs:fit:0:0"], name, path: "/stall-once/", ext: "jpg"))
            #expect(full.status == 200)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: originPath).map(\.bodyBytesSent)
                    == [source.count / 5, source.count])
            #expect(try ProxyHarness.decode(full).size == PixelSize(width: 2400, height: 1800))

            // The whole source is kept now: the same thumbnail under other options comes from it, without the
            // origin, and matches the one made from the prefix.
            let again = await harness.get(harness.plainPath(["w:300"], name, path: "/stall-once/", ext: "png"))
            #expect(again.status == 200)
            #expect(harness.origin.log.count(originPath) == 2)
            let fromWhole = try ProxyHarness.decode(again)
            #expect(fromWhole.size == thumbnail.size)
            #expect(ReducedDecodeTests.psnr(thumbnail.pixels, fromWhole.pixels) >= 40)
        }
    }

    @Test func aSoftPhotosThumbnailFetchesItsDCScanAlone() async throws {
        // 4:2:0 whose chroma the decoder predicts from DC: the origin sends the DC scan and the marker after it,
        // then stalls; the render succeeds only if that was all it needed.
        let source = try Self.softProgressivePhoto()
        let firstScanEnd = try #require(Self.firstScanEnd(source))
        #expect(firstScanEnd < source.count / 4)
        try await ProxyHarness.with { harness in
            harness.origin.serve("soft.jpg", data: source, contentType: "image/jpeg")
            let name = "soft.jpg?after=\(firstScanEnd + 2)"
            let small = await harness.get(harness.plainPath(["rs:fit:100:0"], name, path: "/stall-once/", ext: "png"))
            #expect(small.status == 200)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            let sent = harness.origin.log.requests(for: "/stall-once/soft.jpg").map(\.bodyBytesSent)
            #expect(sent == [firstScanEnd + 2])
            let thumbnail = try ProxyHarness.decode(small)
            #expect(thumbnail.size == PixelSize(width: 100, height: 75))
        }
    }

    /// The library's soft progressive test photo (1000×750, 4:2:0, libjpeg's standard scan script).
    static func softProgressivePhoto() throws -> Data {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("WebImageTests/Fixtures/prefix/progressive-soft.jpg")
        return try Data(contentsOf: file)
    }

    /// Where the first scan's entropy-coded data ends: the first marker after the first SOS segment.
    static func firstScanEnd(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        guard let sos = (0..<(bytes.count - 3)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }) else {
            return nil
        }
        var index = sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] != 0, !(0xD0...0xD7).contains(bytes[index + 1]) { return index }
            index += 1
        }
        return nil
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aStillOfAnAnimationFetchesItsFirstFrameAlone(_ format: ImageFormat) async throws {
        let source = try ProxyHarness.animation(as: format)
        let firstFrameEnd = try #require(Self.firstFrameEnd(source, format: format))
        #expect(firstFrameEnd < source.count / 2)
        let ext = format == .gif ? "gif" : "webp"
        try await ProxyHarness.with { harness in
            harness.origin.serve("anim.\(ext)", data: source, contentType: "image/\(ext)")
            // The origin sends the first frame, then stalls: the render succeeds only if that was all it needed.
            let name = "anim.\(ext)?after=\(firstFrameEnd)"
            let originPath = "/stall-once/anim.\(ext)"
            let first = await harness.get(harness.plainPath(["frame:0"], name, path: "/stall-once/", ext: "png"))
            #expect(first.status == 200)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: originPath).map(\.bodyBytesSent) == [firstFrameEnd])
            #expect(harness.origin.log.clientClosedPaths == [originPath])
            let image = try ProxyHarness.decode(first)
            #expect(image.frames.count == 1 && image.pixels[5, 5] == RGBA(255, 0, 0))

            // A still in another format (the first frame too) comes from the kept start, without the origin.
            let still = await harness.get(harness.plainPath(["w:30"], name, path: "/stall-once/", ext: "jpg"))
            #expect(still.status == 200)
            #expect(harness.origin.log.count(originPath) == 1)

            // The animation needs every frame: the origin is asked again, for the whole file.
            let animated = await harness.get(harness.plainPath(["w:30"], name, path: "/stall-once/", ext: ext))
            #expect(animated.status == 200)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: originPath).map(\.bodyBytesSent) == [firstFrameEnd, source.count])
            #expect(try ProxyHarness.decode(animated).frames.count == 3)
        }
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aPixelLimitCountsEveryFrameOfAStill(_ format: ImageFormat) async throws {
        // 60×40 in three frames: 7 200 pixels against a limit of 5 000. The first frame alone (2 400) would pass.
        let source = try ProxyHarness.animation(as: format)
        let ext = format == .gif ? "gif" : "webp"
        try await ProxyHarness.with(configuring: { $0.allowsSecurityOptions = true }) { harness in
            harness.origin.serve("anim.\(ext)", data: source, contentType: "image/\(ext)")
            let refused = await harness.get(harness.plainPath(["msr:0.005", "frame:0"], "anim.\(ext)", ext: "png"))
            #expect(refused.status == 422)
            await harness.origin.waitUntil { $0.inFlight == 0 }
            #expect(harness.origin.log.requests(for: "/files/anim.\(ext)").map(\.bodyBytesSent) == [source.count])
        }
    }

    /// Where the first frame of an animated GIF or WebP ends, found the plain way.
    static func firstFrameEnd(_ data: Data, format: ImageFormat) -> Int? {
        format == .gif ? gifFirstFrameEnd(data) : webpFirstFrameEnd(data)
    }

    /// After the first `ANMF` chunk (and its padding).
    static func webpFirstFrameEnd(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        var index = 12
        while index + 8 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[index + 4 + $1]) << (8 * $1) }
            let type = String(decoding: bytes[index..<index + 4], as: UTF8.self)
            index += 8 + size + size % 2
            if type == "ANMF" { return index }
        }
        return nil
    }

    /// Where a GIF's first image ends: after the zero-length block that closes its data.
    static func gifFirstFrameEnd(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        func table(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0 }
        var index = 13 + table(bytes[10])
        func skipSubBlocks() {
            while index < bytes.count, bytes[index] != 0 { index += Int(bytes[index]) + 1 }
            index += 1
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x21:
                index += 2
                skipSubBlocks()
            case 0x2C:
                index += 10 + table(bytes[index + 9]) + 1
                skipSubBlocks()
                return index
            default:
                return nil
            }
        }
        return nil
    }

    @Test func aSourceByteLimitReadsTheWholeSource() async throws {
        // A limit on the source's bytes is about the whole file: a prefix must not slip under it.
        let source = try Self.grainyProgressivePhoto()
        try await ProxyHarness.with(configuring: { $0.allowsSecurityOptions = true }) { harness in
            harness.origin.serve("big.jpg", data: source, contentType: "image/jpeg")
            let small = await harness.get(harness.plainPath(["rs:fit:300:0", "msfs:\(source.count / 2)"], "big.jpg",
                                                            ext: "png"))
            #expect(small.status == 422)
        }
    }
}
