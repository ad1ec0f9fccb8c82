import CoderTestSupport
import Foundation
import Testing
@testable import WebImage

/// Thumbnails that fill their box (`thumbnailFill`): the source decoded just large enough to cover the box, then
/// its centre kept, so an avatar is square whatever the photo's shape.
@Suite struct ThumbnailFillTests {
    private static func differing(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        guard a.size == b.size else { return .max }
        return (0..<a.height).reduce(0) { count, y in count + (0..<a.width).filter { a[$0, y] != b[$0, y] }.count }
    }

    /// A 300×200 photo as PNG, made for each test (a static one would outlive the suite, which LeakSanitizer
    /// reports as a leak).
    private static func png() throws -> Data {
        try ImageCoders.shared.encode(Image(pixels: GrainyPhoto.pixels(width: 300, height: 200)), as: .png)
    }

    @Test func aWideSourceCoversTheBoxAndKeepsItsCentre() throws {
        let filled = try ImageCoders.shared.decode(try Self.png(), options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 100, height: 100), thumbnailFill: true))
        #expect(filled.size == PixelSize(width: 100, height: 100))
        #expect(filled.flags.contains(.thumbnail))
        // What a fitting decode to 150×100 gives, cut to its middle 100 columns.
        let covering = try ImageCoders.shared.decode(try Self.png(), options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 150, height: 100)))
        #expect(Self.differing(filled.pixels, try covering.pixels.cropped(to: PixelRect(x: 25, y: 0, width: 100, height: 100))) == 0)
    }

    @Test func aBoxLargerThanTheSourceOnOneSideKeepsThatSideWhole() throws {
        let filled = try ImageCoders.shared.decode(try Self.png(), options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 400, height: 100), thumbnailFill: true))
        #expect(filled.size == PixelSize(width: 300, height: 100))
        let whole = try ImageCoders.shared.decode(try Self.png())
        #expect(Self.differing(filled.pixels, try whole.pixels.cropped(to: PixelRect(x: 0, y: 50, width: 300, height: 100))) == 0)
    }

    @Test func aLargeJPEGIsScaledWhileDecodingAndComesOutSquare() throws {
        let jpeg = try GrainyPhoto.jpeg(width: 1200, height: 800, progressive: false)
        let filled = try ImageCoders.shared.decode(jpeg, options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 128, height: 128), thumbnailFill: true))
        #expect(filled.size == PixelSize(width: 128, height: 128))
        // Without the aspect ratio kept, the box is filled by stretching, as before.
        let stretched = try ImageCoders.shared.decode(jpeg, options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 128, height: 64), preserveAspectRatio: false, thumbnailFill: true))
        #expect(stretched.size == PixelSize(width: 128, height: 64))
    }

    @Test func theManagerMakesSquareAvatarsFromDecodesAndFromAnOriginalInMemory() async throws {
        try await ManagerHarness.with { h in
            h.server.serve("photo.png", data: try Self.png())
            let url = h.server.url("/files/photo.png")
            let avatar = ImageContext(thumbnailPixelSize: PixelSize(width: 64, height: 64), thumbnailFill: true)
            let fitting = ImageContext(thumbnailPixelSize: PixelSize(width: 64, height: 64))
            #expect(h.manager.cacheKey(for: url, context: avatar) != h.manager.cacheKey(for: url, context: fitting))
            let decoded = try await h.manager.loadImage(from: url, context: avatar)
            #expect(decoded.image.size == PixelSize(width: 64, height: 64))
            #expect(try await h.manager.loadImage(from: url, context: fitting).image.size == PixelSize(width: 64, height: 43))
            // From the original held in memory: the pixels a decode of the file gives.
            let original = try await h.manager.loadImage(from: url, options: [.waitStoreCache])
            #expect(original.image.size == PixelSize(width: 300, height: 200))
            let small = ImageContext(thumbnailPixelSize: PixelSize(width: 48, height: 48),
                                     originalQueryCacheType: .memory, thumbnailFill: true)
            let reduced = try await h.manager.loadImage(from: url, context: small)
            #expect(reduced.cacheType == .memory)
            let direct = try ImageCoders.shared.decode(try Self.png(), options: DecodeOptions(
                thumbnailPixelSize: PixelSize(width: 48, height: 48), thumbnailFill: true))
            #expect(reduced.image.size == PixelSize(width: 48, height: 48))
            #expect(Self.differing(reduced.image.pixels, direct.pixels) == 0)
        }
    }
}
