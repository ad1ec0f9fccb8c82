import Foundation
import Testing
@testable import WebImage

@Suite("GIF decoding: still images, palettes, options")
struct GIFDecodingTests {
    typealias C = GIFColors

    @Test("an opaque still image decodes to its four colour bands")
    func staticOpaque() throws {
        let image = try GIFTesting.decode("static-opaque.gif")
        #expect(image.size == PixelSize(width: 16, height: 8))
        #expect(image.frames.count == 1)
        #expect(image.frames[0].duration == 0)
        #expect(image.loopCount == 1)
        #expect(image.format == .gif)
        #expect(!image.hasAlpha)
        #expect(!image.isAnimated)
        let bands = [C.a, C.b, C.c, C.d]
        #expect(GIFTesting.mismatch(image.pixels) { x, _ in bands[x / 4] } == nil)
    }

    @Test("the transparent index becomes transparent pixels and sets hasAlpha")
    func staticTransparent() throws {
        let image = try GIFTesting.decode("static-transparent.gif")
        #expect(image.hasAlpha)
        #expect(GIFTesting.mismatch(image.pixels) { x, y in
            y == 7 ? C.b : ((x + y) % 2 == 0 ? C.clear : C.a)
        } == nil)
    }

    @Test("interlaced rows land on their own rows")
    func interlaced() throws {
        let image = try GIFTesting.decode("interlaced.gif")
        #expect(image.size == PixelSize(width: 4, height: 19))
        #expect(GIFTesting.mismatch(image.pixels) { _, y in
            RGBA(UInt8(8 * y), UInt8(255 - 8 * y), UInt8((37 * y) % 256))
        } == nil)
    }

    @Test("an interlaced frame reaching below the canvas is clipped, and the frames after it still decode")
    func interlacedClipped() throws {
        let image = try GIFTesting.decode("interlaced-clipped.gif")
        let ramp: (Int) -> RGBA = { RGBA(UInt8(8 * $0), UInt8(255 - 8 * $0), UInt8((37 * $0) % 256)) }
        #expect(image.frames.count == 3)
        let clipped: (Int, Int) -> RGBA = { _, y in y < 2 ? ramp(31) : ramp(y - 2) }
        #expect(GIFTesting.mismatch(image.frames[1].pixels, clipped) == nil)
        #expect(GIFTesting.mismatch(image.frames[2].pixels) { x, y in
            x == 0 && y == 0 ? ramp(20) : clipped(x, y)
        } == nil)
    }

    @Test("a file without any colour table reads indices as grey levels")
    func noPalette() throws {
        let image = try GIFTesting.decode("no-palette.gif")
        let greys: [UInt8] = [0, 64, 128, 255]
        #expect(GIFTesting.mismatch(image.pixels) { x, _ in RGBA(greys[x], greys[x], greys[x]) } == nil)
    }

    @Test("an empty logical screen takes the first frame's size")
    func emptyScreen() throws {
        let image = try GIFTesting.decode("screen-zero.gif")
        #expect(image.size == PixelSize(width: 3, height: 2))
        let colors = [C.a, C.b, C.c, C.d, C.a, C.b]
        #expect(GIFTesting.mismatch(image.pixels) { x, y in colors[y * 3 + x] } == nil)
    }

    @Test("local palettes replace the global one per frame, and the transparent index shows what is below")
    func localPalettes() throws {
        let image = try GIFTesting.decode("local-palettes.gif")
        #expect(image.frames.count == 3)
        #expect(GIFTesting.mismatch(image.frames[0].pixels) { _, y in y < 2 ? C.a : C.b } == nil)
        let second: (Int, Int) -> RGBA = { _, y in [C.c, C.d, C.white, C.b][y] }
        #expect(GIFTesting.mismatch(image.frames[1].pixels, second) == nil)
        #expect(GIFTesting.mismatch(image.frames[2].pixels) { x, y in
            guard (1...2).contains(x), (1...2).contains(y) else { return second(x, y) }
            return x == y ? C.d : C.c
        } == nil)
        #expect(!image.hasAlpha)
    }

    @Test("firstFrameOnly gives a still image of the first frame")
    func firstFrameOnly() throws {
        let image = try GIFTesting.decode("dispose-previous.gif", options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.loopCount == 1)
        #expect(image.frames[0].duration == 0)
        #expect(GIFTesting.mismatch(image.pixels) { _, _ in C.a } == nil)
    }

    @Test("a thumbnail reduces every frame to the same smaller size")
    func thumbnail() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4))
        let image = try GIFTesting.decode("dispose-none.gif", options: options)
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.pixels.size == PixelSize(width: 4, height: 4) })
        #expect(image.flags.contains(.thumbnail))
        // Each output pixel averages a 2x2 block: frame 1 is all A, and the top-left block stays A throughout.
        #expect(image.frames[2].pixels[0, 0] == C.a)
        #expect(GIFTesting.mismatch(image.frames[0].pixels) { _, _ in C.a } == nil)
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.1])
    }

    @Test("the scale-down limit in bytes reduces every frame")
    func scaleDownLimit() throws {
        // 8x8 frames; 64 bytes hold 16 RGBA pixels, so 4x4.
        let image = try GIFTesting.decode("dispose-background.gif", options: DecodeOptions(scaleDownLimitBytes: 64))
        #expect(image.frames.map(\.pixels.size) == Array(repeating: PixelSize(width: 4, height: 4), count: 3))
        #expect(image.flags.contains(.thumbnail))
        #expect(image.hasAlpha)
    }

    @Test("a single frame is a still image even when the file asks to loop")
    func singleFrameIsStill() throws {
        let data = try Fixtures.data("gif/loop-0.gif")
        // Keep the header, the NETSCAPE2.0 extension and the first frame, then end with the trailer.
        let full = try GIFCoder().decodeCompleteFrames(data, options: DecodeOptions())
        #expect(full.image.loopCount == 0)
        let secondFrame = try #require(data.range(of: Data([0x21, 0xF9]), in: 60..<data.count))
        var oneFrame = Data(data[..<secondFrame.lowerBound])
        oneFrame.append(0x3B)
        let still = try GIFCoder().decodeCompleteFrames(oneFrame, options: DecodeOptions())
        #expect(still.error == nil)
        #expect(still.image.frames.count == 1)
        #expect(still.image.loopCount == 1)
        #expect(still.image.frames[0].duration == 0)
    }

    @Test("the scale factor comes from the file name")
    func scaleFromName() throws {
        let image = try GIFTesting.decode("static-opaque.gif", options: DecodeOptions(fileNameHint: "logo@2x.gif"))
        #expect(image.scale == 2)
    }

    @Test("the shared registry picks the GIF coder")
    func registry() throws {
        let image = try ImageCoders.shared.decode(Fixtures.data("gif/loop-3.gif"))
        #expect(image.format == .gif)
        #expect(image.frames.count == 2)
    }

    @Test("an ImageMagick-optimised animation matches Pillow's decode frame by frame")
    func matchesPillow() throws {
        let image = try GIFTesting.decode("magick-optimized.gif")
        let reference = try Fixtures.data("gif/magick-optimized.rgba")
        #expect(image.size == PixelSize(width: 48, height: 32))
        let frameBytes = 48 * 32 * 4
        try #require(reference.count == frameBytes * image.frames.count)
        for (number, frame) in image.frames.enumerated() {
            let expected = Array(reference[(number * frameBytes)..<((number + 1) * frameBytes)])
            #expect(frame.pixels.bytes == expected, "frame \(number)")
        }
        #expect(image.frames.map(\.duration) == [0.07, 0.07, 0.07, 0.07])
        // ImageMagick writes `-loop 2` as the NETSCAPE value 1; the value is reported as written.
        #expect(image.loopCount == 1)
    }
}
