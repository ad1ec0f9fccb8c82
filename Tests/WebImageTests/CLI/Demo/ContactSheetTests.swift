import Testing
@testable import WebImage
@testable import WebImageCLI

@Suite struct ContactSheetTests {
    let background = RGBA(10, 20, 30)

    func count(_ color: RGBA, in pixels: PixelBuffer) -> Int {
        var found = 0
        for y in 0..<pixels.height { for x in 0..<pixels.width where pixels[x, y] == color { found += 1 } }
        return found
    }

    @Test func tilesGoLeftToRightThenDown() {
        let sheet = ContactSheet(columns: 10, tileSize: 96, spacing: 8)
        #expect(sheet.tileOrigin(0) == (8, 8))
        #expect(sheet.tileOrigin(9) == (8 + 9 * 104, 8))
        #expect(sheet.tileOrigin(11) == (112, 112))
        #expect(sheet.canvasSize(count: 3) == PixelSize(width: 320, height: 112))
        #expect(sheet.canvasSize(count: 100) == PixelSize(width: 1048, height: 1048))
        #expect(sheet.canvasSize(count: 101) == PixelSize(width: 1048, height: 1152))
    }

    @Test func thumbnailsAreCentredInTheirTiles() throws {
        let sheet = ContactSheet(columns: 2, tileSize: 4, spacing: 1, background: background)
        let red = RGBA(255, 0, 0), green = RGBA(0, 255, 0), blue = RGBA(0, 0, 255)
        let pixels = try sheet.render([
            try PixelBuffer(width: 4, height: 4, filledWith: red),
            try PixelBuffer(width: 2, height: 2, filledWith: green),
            try PixelBuffer(width: 4, height: 2, filledWith: blue),
        ])
        #expect(pixels.size == PixelSize(width: 11, height: 11))
        // Tile 0 at (1,1) filled; tile 1 at (6,1) with a 2×2 centred at (7,2); tile 2 at (1,6), 4×2 at (1,7).
        #expect(pixels[1, 1] == red && pixels[4, 4] == red && pixels[0, 0] == background && pixels[5, 1] == background)
        #expect(pixels[7, 2] == green && pixels[8, 3] == green)
        #expect(pixels[6, 1] == background && pixels[9, 4] == background && pixels[7, 4] == background)
        #expect(pixels[1, 7] == blue && pixels[4, 8] == blue && pixels[1, 6] == background && pixels[1, 9] == background)
        #expect(count(red, in: pixels) == 16 && count(green, in: pixels) == 4 && count(blue, in: pixels) == 8)
        #expect(count(background, in: pixels) == 121 - 28)
    }

    @Test func alphaIsBlendedOverTheBackground() throws {
        let sheet = ContactSheet(columns: 1, tileSize: 1, spacing: 0, background: background)
        let pixels = try sheet.render([try PixelBuffer(width: 1, height: 1, filledWith: RGBA(255, 0, 0, 128))])
        // (255·128 + 10·127) / 255 = 132.98 → 133; 20·127 / 255 = 9.96 → 10; 30·127 / 255 = 14.94 → 15.
        #expect(pixels[0, 0] == RGBA(133, 10, 15, 255))
    }

    @Test func largeImagesAreScaledToFitATileAndSmallOnesKept() throws {
        let sheet = ContactSheet(columns: 4, tileSize: 50, spacing: 2)
        let wide = Image(pixels: try PixelBuffer(width: 200, height: 100, filledWith: RGBA(1, 2, 3)))
        #expect(try sheet.thumbnail(of: wide).size == PixelSize(width: 50, height: 25))
        let small = Image(pixels: try PixelBuffer(width: 20, height: 30, filledWith: RGBA(1, 2, 3)))
        #expect(try sheet.thumbnail(of: small).size == PixelSize(width: 20, height: 30))
    }
}
