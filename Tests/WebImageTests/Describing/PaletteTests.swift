import Testing
@testable import WebImage

@Suite struct PaletteTests {
    private let red = RGBA(200, 30, 30), green = RGBA(30, 200, 30), blue = RGBA(30, 30, 200)

    @Test func fewColoursAreGivenExactlyMostUsedFirst() throws {
        let colours = Array(repeating: green, count: 5) + Array(repeating: red, count: 3) + [blue]
        let pixels = try PixelBuffer(width: 9, height: 1, rgba: colours.flatMap { [$0.r, $0.g, $0.b, $0.a] })
        #expect(try pixels.palette(maxColors: 3) == [green, red, blue])
        #expect(try pixels.palette(maxColors: 256) == [green, red, blue])
        // Two places for three colours: a colour stands for more than one of them.
        let two = try pixels.palette(maxColors: 2)
        #expect(two.count == 2)
        #expect(!two.contains(blue) || !two.contains(red))
    }

    @Test func transparentPixelsAreOneEntryThatTakesAPlace() throws {
        let clear = RGBA(0, 0, 255, 0)
        let colours = [red, red, clear, clear, clear, green]
        let pixels = try PixelBuffer(width: 6, height: 1, rgba: colours.flatMap { [$0.r, $0.g, $0.b, $0.a] })
        #expect(try pixels.palette(maxColors: 3) == [RGBA(0, 0, 0, 0), red, green])
        let two = try pixels.palette(maxColors: 2)
        #expect(two.count == 2 && two[0] == RGBA(0, 0, 0, 0) && two[1].a == 255)
    }

    @Test func aPhotosPaletteStandsCloseToEveryPixel() throws {
        let photo = try PlaceholderReferences.pixels("photo.png")
        let palette = try photo.palette(maxColors: 16)
        #expect(palette.count > 8 && palette.count <= 16)
        #expect(palette.allSatisfy { $0.a == 255 })
        // The mean distance from a pixel to its nearest palette colour, in 8-bit RGB units.
        var total = 0.0
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let pixel = photo[x, y]
                total += palette.map { colour -> Double in
                    let dr = Double(colour.r) - Double(pixel.r), dg = Double(colour.g) - Double(pixel.g)
                    let db = Double(colour.b) - Double(pixel.b)
                    return (dr * dr + dg * dg + db * db).squareRoot()
                }.min()!
            }
        }
        // Pillow's 16-colour palettes of these pixels stand 29.6 (median cut) and 29.2 (octree) away on average.
        #expect(total / Double(photo.width * photo.height) < 29.2)
    }

    @Test func countsOutsideTwoTo256AreInvalid() throws {
        let pixels = try PixelBuffer(width: 2, height: 2, filledWith: red)
        for count in [0, 1, 257] {
            #expect(throws: ImageError.self) { try pixels.palette(maxColors: count) }
        }
        #expect(try pixels.palette(maxColors: 2) == [red])
    }
}
