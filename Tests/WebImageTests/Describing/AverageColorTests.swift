import Testing
@testable import WebImage

@Suite struct AverageColorTests {
    @Test func transparentPixelsAreLeftOutUnlessAskedFor() throws {
        let pixels = try PixelBuffer(width: 4, height: 1, rgba: [
            10, 20, 30, 255,  21, 40, 60, 255,  0, 0, 255, 0,  0, 0, 255, 0,
        ])
        #expect(pixels.averageColor() == RGBA(16, 30, 45, 255))  // 15.5 rounds up
        #expect(pixels.averageColor(ignoringTransparent: false) == RGBA(8, 15, 150, 128))
        let clear = try PixelBuffer(width: 3, height: 3)
        #expect(clear.averageColor() == nil)
        #expect(clear.averageColor(ignoringTransparent: false) == RGBA(0, 0, 0, 0))
    }
}
