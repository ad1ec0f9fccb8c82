import Foundation
import Testing
@testable import WebImage

/// Composited frames checked pixel by pixel; the expected pictures follow from how `scripts/fixtures/gif.sh`
/// built each frame and what each disposal method means.
@Suite("GIF animation: disposal, clipping, timing, looping")
struct GIFAnimationTests {
    typealias C = GIFColors
    let inSquare = GIFTesting.inSquare

    @Test("disposal none keeps every frame under the next")
    func disposeNone() throws {
        let image = try GIFTesting.decode("dispose-none.gif")
        #expect(image.frames.count == 3)
        #expect(image.loopCount == 0)
        #expect(!image.hasAlpha)
        let frames = image.frames.map(\.pixels)
        #expect(GIFTesting.mismatch(frames[0]) { _, _ in C.a } == nil)
        let second: (Int, Int) -> RGBA = { x, y in inSquare(x, y, 2, 2, 3) ? C.b : C.a }
        #expect(GIFTesting.mismatch(frames[1], second) == nil)
        #expect(GIFTesting.mismatch(frames[2]) { x, y in inSquare(x, y, 4, 4, 3) ? C.c : second(x, y) } == nil)
    }

    @Test("disposal background clears the frame's rectangle to transparent before the next frame")
    func disposeBackground() throws {
        let image = try GIFTesting.decode("dispose-background.gif")
        #expect(image.frames.count == 3)
        #expect(image.hasAlpha)
        let frames = image.frames.map(\.pixels)
        #expect(GIFTesting.mismatch(frames[0]) { _, _ in C.a } == nil)
        #expect(GIFTesting.mismatch(frames[1]) { x, y in inSquare(x, y, 2, 2, 3) ? C.b : C.a } == nil)
        #expect(GIFTesting.mismatch(frames[2]) { x, y in
            if inSquare(x, y, 5, 5, 2) { return C.c }
            return inSquare(x, y, 2, 2, 3) ? C.clear : C.a
        } == nil)
    }

    @Test("disposal previous restores what the frame covered, also twice in a row")
    func disposePrevious() throws {
        let image = try GIFTesting.decode("dispose-previous.gif")
        #expect(image.frames.count == 4)
        #expect(!image.hasAlpha)
        let frames = image.frames.map(\.pixels)
        #expect(GIFTesting.mismatch(frames[0]) { _, _ in C.a } == nil)
        #expect(GIFTesting.mismatch(frames[1]) { x, y in inSquare(x, y, 1, 1, 4) ? C.b : C.a } == nil)
        #expect(GIFTesting.mismatch(frames[2]) { x, y in inSquare(x, y, 4, 4, 3) ? C.c : C.a } == nil)
        #expect(GIFTesting.mismatch(frames[3]) { x, y in inSquare(x, y, 0, 0, 2) ? C.d : C.a } == nil)
    }

    @Test("disposal previous on the first frame restores the empty canvas")
    func disposePreviousFirst() throws {
        let image = try GIFTesting.decode("dispose-previous-first.gif")
        #expect(image.hasAlpha)
        let frames = image.frames.map(\.pixels)
        #expect(GIFTesting.mismatch(frames[0]) { x, y in inSquare(x, y, 0, 0, 2) ? C.a : C.clear } == nil)
        #expect(GIFTesting.mismatch(frames[1]) { x, y in inSquare(x, y, 2, 2, 2) ? C.b : C.clear } == nil)
    }

    @Test("frames reaching past the canvas are clipped; frames wholly outside change nothing")
    func clipping() throws {
        let image = try GIFTesting.decode("frame-outside.gif")
        #expect(image.size == PixelSize(width: 4, height: 4))
        #expect(image.frames.count == 3)
        let clipped: (Int, Int) -> RGBA = { x, y in inSquare(x, y, 2, 2, 2) ? C.b : C.a }
        #expect(GIFTesting.mismatch(image.frames[1].pixels, clipped) == nil)
        #expect(GIFTesting.mismatch(image.frames[2].pixels, clipped) == nil)
    }

    @Test("delays under 0.011 s and missing delays play as 0.1 s; others as written")
    func durations() throws {
        let image = try GIFTesting.decode("delays.gif")
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.02, 0.1, 1.5, 0.1])
        #expect(abs(image.duration - 1.92) < 1e-9)
    }

    @Test("loop count: absent is 1, otherwise the NETSCAPE2.0 value", arguments: [
        ("no-netscape.gif", 1), ("loop-0.gif", 0), ("loop-3.gif", 3),
    ])
    func loopCount(name: String, expected: Int) throws {
        let image = try GIFTesting.decode(name)
        #expect(image.loopCount == expected)
        #expect(image.frames.count == 2)
        #expect(image.frames.map(\.duration) == [0.2, 0.2])
        #expect(GIFTesting.mismatch(image.frames[1].pixels) { _, _ in C.b } == nil)
    }

    @Test("memory cost counts every frame")
    func memoryCost() throws {
        let image = try GIFTesting.decode("dispose-previous.gif")
        #expect(image.memoryCost == 4 * 8 * 8 * 4)
    }
}
