import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// imgproxy's geometry and effect options as the renderer draws them: sizes from its arithmetic, kept regions
/// read from sources whose quadrants have different colours, and the colours of what is added.
@Suite struct ProxyRenderingOptionsTests {
    static let red = RGBA(255, 0, 0), green = RGBA(0, 255, 0), blue = RGBA(0, 0, 255), yellow = RGBA(255, 255, 0)
    static let grey = RGBA(128, 128, 128), white = RGBA(255, 255, 255), clear = RGBA(0, 0, 0, 0)

    /// `width` × `height` with red, green, blue and yellow quadrants (top left, top right, bottom left, bottom
    /// right).
    static func quadrants(width: Int, height: Int) throws -> Image {
        try image(width: width, height: height) { x, y in
            switch (x < width / 2, y < height / 2) {
            case (true, true): red
            case (false, true): green
            case (true, false): blue
            case (false, false): yellow
            }
        }
    }

    static func image(width: Int, height: Int, _ color: (Int, Int) -> RGBA) throws -> Image {
        let pixels = try PixelBuffer(width: width, height: height) { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let pixel = color(x, y), offset = (y * width + x) * 4
                    (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]) =
                        (pixel.r, pixel.g, pixel.b, pixel.a)
                }
            }
        }
        return Image(pixels: pixels)
    }

    /// The renderer's result for `segments`, decoded.
    static func render(_ source: Image, _ segments: [String], as format: OutputFormat = .png,
                       watermark: ProxyWatermark? = nil) throws -> PixelBuffer {
        let renderer = ProxyRenderer(watermark: watermark)
        let data = try renderer.render(source, options: try ProcessingOptions(segments: segments), format: format)
        return try ImageCoders.shared.decode(data).pixels
    }

    static func plan(_ segments: [String], source: PixelSize = PixelSize(width: 400, height: 300)) throws
        -> ResizePlan
    {
        ResizePlan(source: source, options: try ProcessingOptions(segments: segments))
    }

    /// Whether `a` and `b` differ by at most `tolerance` in every channel (lossy formats, resampled edges).
    static func near(_ a: RGBA, _ b: RGBA, _ tolerance: Int = 6) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && abs(Int(a.a) - Int(b.a)) <= tolerance
    }

    // MARK: - Geometry

    @Test func minWidthAndMinHeightGrowTheScaleAndTheBoxStillCrops() throws {
        // Height 30 alone scales 400×300 to 40×30; a minimum width of 200 scales to 200×150 instead, and the
        // height of the box then crops it (imgproxy's documented warning).
        #expect(try Self.plan(["h:30"]).outputSize == PixelSize(width: 40, height: 30))
        let plan = try Self.plan(["h:30", "mw:200"])
        #expect(plan.scaledSize == PixelSize(width: 200, height: 150))
        #expect(plan.outputSize == PixelSize(width: 200, height: 30))
        #expect(try Self.plan(["w:100", "mh:150"]).outputSize == PixelSize(width: 100, height: 150))
        #expect(try Self.plan(["w:100", "mh:150"]).scaledSize == PixelSize(width: 200, height: 150))
        // A minimum the scale already meets changes nothing.
        #expect(try Self.plan(["w:200", "mw:100"]).outputSize == PixelSize(width: 200, height: 150))
        // min-width follows dpr, as the box does.
        #expect(try Self.plan(["h:15", "mw:100", "dpr:2"]).scaledSize == PixelSize(width: 200, height: 150))
    }

    @Test func zoomMultipliesTheBoxOrTheSourceButDoesNotEnlargeAlone() throws {
        #expect(try Self.plan(["z:0.5"]).outputSize == PixelSize(width: 200, height: 150))
        #expect(try Self.plan(["z:0.5:0.25"]).outputSize == PixelSize(width: 200, height: 75))
        #expect(try Self.plan(["w:100", "z:2"]).outputSize == PixelSize(width: 200, height: 150))
        #expect(try Self.plan(["z:2"]).outputSize == PixelSize(width: 400, height: 300))
        #expect(try Self.plan(["z:2", "el:1"]).outputSize == PixelSize(width: 800, height: 600))
    }

    @Test func dprIsLoweredWhenTheSourceIsTooSmallToFillTheBox() throws {
        // imgproxy keeps the composition: 500×100 at dpr 2 on a 400×300 source cannot be reached, so the box
        // stays 500×100 (and is cropped to the source's width) rather than becoming 1000×200.
        let plan = try Self.plan(["rs:fill:500:100", "dpr:2"])
        #expect(plan.dprScale == 1)
        #expect(plan.outputSize == PixelSize(width: 400, height: 100))
        #expect(try Self.plan(["w:100", "dpr:2"]).dprScale == 2)
    }

    @Test func dprMultipliesGravityOffsetsInPixelsButNotFractions() throws {
        let image = PixelSize(width: 100, height: 80), crop = PixelSize(width: 40, height: 20)
        #expect(GravityPlacement.rect(of: crop, in: image, gravity: Gravity(.west, x: 10), dpr: 2).x == 20)
        #expect(GravityPlacement.rect(of: crop, in: image, gravity: Gravity(.west, x: 0.1), dpr: 2).x == 10)
        // The crop of a fill: 400×300 to 100×100 at dpr 2 is 267×200 cropped to 200×200 from x = 2 × 10.
        let source = try Self.image(width: 400, height: 300) { x, _ in RGBA(UInt8(x / 2), 0, 0) }
        let result = try Self.render(source, ["rs:fill:100:100", "g:we:10", "dpr:2"])
        #expect(result.size == PixelSize(width: 200, height: 200))
        // Column 0 of the result is column 20 of the 267-wide scaled image: red about 20 × 400 / 267 / 2 = 15.
        #expect(abs(Int(result[0, 100].r) - 15) <= 2)
    }

    @Test func extendPlacesTheResultOnABoxOfTheBackground() throws {
        let source = try Self.quadrants(width: 100, height: 50)
        let centred = try Self.render(source, ["rs:fit:200:200", "ex:1"])
        #expect(centred.size == PixelSize(width: 200, height: 200))
        #expect(centred[0, 0] == Self.clear)  // PNG without a background: transparent
        // Centred as imgproxy centres: the free 150 rows plus one, halved, halves to even: row 76.
        #expect(centred[50, 76] == Self.red && centred[149, 125] == Self.yellow)
        #expect(centred[49, 76] == Self.clear && centred[50, 75] == Self.clear && centred[150, 125] == Self.clear)
        #expect(centred[149, 126] == Self.clear)

        let corner = try Self.render(source, ["rs:fit:200:200", "ex:1:nowe", "bg:00ff00"])
        #expect(corner[0, 0] == Self.red && corner[100, 0] == Self.green && corner[0, 50] == Self.green)

        let offset = try Self.render(source, ["rs:fit:200:200", "ex:1:ea:10"])
        #expect(offset[90, 80] == Self.red && offset[89, 80] == Self.clear && offset[190, 80] == Self.clear)

        // JPEG has no alpha: without a background the box is white, imgproxy's default.
        let jpeg = try Self.render(source, ["rs:fit:200:200", "ex:1"], as: .jpeg)
        #expect(Self.near(jpeg[5, 5], Self.white) && Self.near(jpeg[60, 85], Self.red, 40))
        // Smaller box than the result: nothing to extend.
        #expect(try Self.render(source, ["w:50", "ex:1"]).size == PixelSize(width: 50, height: 25))
    }

    @Test func extendAspectRatioExtendsToTheBoxShape() throws {
        let source = try Self.quadrants(width: 100, height: 50)
        let plan = try Self.plan(["rs:fit:200:200", "exar:1"], source: source.size)
        #expect(plan.aspectRatioSize == PixelSize(width: 100, height: 100))
        let result = try Self.render(source, ["rs:fit:200:200", "exar:1", "bg:0000ff"])
        #expect(result.size == PixelSize(width: 100, height: 100))
        #expect(result[0, 0] == Self.blue && result[0, 25] == Self.blue)
        #expect(result[0, 26] == Self.red && result[99, 75] == Self.yellow && result[99, 76] == Self.blue)
        let south = try Self.render(source, ["rs:fit:200:200", "exar:1:so"])
        #expect(south[0, 50] == Self.red && south[0, 49] == Self.clear)
    }

    @Test func paddingAddsBackgroundInDevicePixels() throws {
        let source = try Self.quadrants(width: 100, height: 50)
        let padded = try Self.render(source, ["pd:10:20:30:40", "bg:00ff00"])
        #expect(padded.size == PixelSize(width: 160, height: 90))
        #expect(padded[39, 10] == Self.green && padded[40, 9] == Self.green)
        #expect(padded[40, 10] == Self.red && padded[139, 59] == Self.yellow)
        #expect(padded[140, 59] == Self.green && padded[139, 60] == Self.green)
        // One value is every side; dpr doubles it (and the box).
        let retina = try Self.render(source, ["w:50", "pd:5", "dpr:2"])
        #expect(retina.size == PixelSize(width: 120, height: 70))
        #expect(retina[9, 9] == Self.clear && retina[10, 10] == Self.red)
    }

    @Test func flipMirrorsAndCropsFollowTheFlippedImage() throws {
        let source = try Self.quadrants(width: 40, height: 40)
        let horizontal = try Self.render(source, ["fl:1"])
        #expect(horizontal[0, 0] == Self.green && horizontal[39, 0] == Self.red && horizontal[0, 39] == Self.yellow)
        let vertical = try Self.render(source, ["fl:0:1"])
        #expect(vertical[0, 0] == Self.blue && vertical[39, 39] == Self.green)
        let both = try Self.render(source, ["fl:1:1"])
        #expect(both[0, 0] == Self.yellow && both[39, 39] == Self.red)
        // The west half after flipping is the east half before it.
        let cropped = try Self.render(source, ["rs:fill:20:40", "g:we", "fl:1"])
        #expect(cropped.size == PixelSize(width: 20, height: 40))
        #expect(cropped[0, 0] == Self.green && cropped[19, 39] == Self.yellow)
    }

    // MARK: - Effects

    @Test func pixelateMakesUniformBlocksFromTheTopLeft() throws {
        let source = try Self.image(width: 45, height: 30) { x, y in RGBA(UInt8(x * 5), UInt8(y * 8), 90) }
        let result = try Self.render(source, ["pix:10"])
        #expect(result.size == source.size)
        for blockY in 0..<3 {
            for blockX in 0..<5 {
                let first = result[blockX * 10, blockY * 10]
                let uniform = (blockY * 10..<blockY * 10 + 10).allSatisfy { y in
                    (blockX * 10..<min(45, blockX * 10 + 10)).allSatisfy { result[$0, y] == first }
                }
                #expect(uniform, "block \(blockX), \(blockY)")
            }
        }
        // A block is its pixels' average: red 5x over x in 0..<10 averages 22.5, green 8y over 0..<10 is 36.
        #expect(Self.near(result[0, 0], RGBA(23, 36, 90), 1))
        // The last column of blocks is 5 wide and averages as if mirrored: red over 40..<45 twice is 210.
        #expect(Self.near(result[44, 0], RGBA(210, 36, 90), 1))
        #expect(result[9, 0] != result[10, 0])
        #expect(try Self.render(source, ["pix:1"]).bytes == source.pixels.bytes)
    }

    /// 60×40 of `border` with a red 40×20 rectangle at (10, 10), and whatever `adjust` changes.
    static func framed(_ border: RGBA = white, left: Int = 10, right: Int = 10,
                       adjust: (Int, Int) -> RGBA? = { _, _ in nil }) throws -> Image {
        let width = left + 40 + right
        return try image(width: width, height: 40) { x, y in
            adjust(x, y) ?? ((left..<left + 40).contains(x) && (10..<30).contains(y) ? red : border)
        }
    }

    @Test func trimRemovesAUniformBorderBeforeEverythingElse() throws {
        let trimmed = try Self.render(try Self.framed(), ["t:10"])
        #expect(trimmed.size == PixelSize(width: 40, height: 20))
        #expect(trimmed[0, 0] == Self.red && trimmed[39, 19] == Self.red)
        // Before the resize: the trimmed 40×20 is what w:20 scales.
        #expect(try Self.render(try Self.framed(), ["t:10", "w:20"]).size == PixelSize(width: 20, height: 10))
        // A speck of noise in the border does not stop the trim (libvips smooths with a 3×3 median first).
        let speckled = try Self.framed { x, y in x == 3 && y == 3 ? RGBA(0, 0, 0) : nil }
        #expect(try Self.render(speckled, ["t:10"]).size == PixelSize(width: 40, height: 20))
        // An image that is all background stays whole.
        let blank = try Self.image(width: 20, height: 20) { _, _ in Self.white }
        #expect(try Self.render(blank, ["t:10"]).size == PixelSize(width: 20, height: 20))
    }

    @Test func trimThresholdAndColourDecideWhatIsBorder() throws {
        let offWhite = try Self.framed(RGBA(250, 250, 250))
        #expect(try Self.render(offWhite, ["t:10:ffffff"]).size == PixelSize(width: 40, height: 20))
        #expect(try Self.render(offWhite, ["t:2:ffffff"]).size == PixelSize(width: 60, height: 40))
        // A colour that is not the border's: nothing matches it, nothing is cut.
        #expect(try Self.render(try Self.framed(), ["t:10:0000ff"]).size == PixelSize(width: 60, height: 40))
        // Transparency is compared as magenta, imgproxy's transparency key.
        let transparent = try Self.framed(Self.clear)
        #expect(try Self.render(transparent, ["t:0:ff00ff"]).size == PixelSize(width: 40, height: 20))
        #expect(try Self.render(transparent, ["t:0"]).size == PixelSize(width: 40, height: 20))
    }

    @Test func trimEqualSidesCutsTheSmallerAmountFromBoth() throws {
        let uneven = try Self.framed(left: 10, right: 4)  // 54×40; the top border 10, the bottom 10
        #expect(try Self.render(uneven, ["t:10"]).size == PixelSize(width: 40, height: 20))
        let equalHorizontal = try Self.render(uneven, ["t:10::1"])
        #expect(equalHorizontal.size == PixelSize(width: 46, height: 20))
        #expect(equalHorizontal[0, 0] == Self.white && equalHorizontal[6, 0] == Self.red)
        let tall = try Self.image(width: 40, height: 50) { _, y in (12..<44).contains(y) ? Self.red : Self.white }
        #expect(try Self.render(tall, ["t:10"]).size == PixelSize(width: 40, height: 32))
        let equalVertical = try Self.render(tall, ["t:10::0:1"])
        #expect(equalVertical.size == PixelSize(width: 40, height: 38))  // 6 cut from the top and the bottom
        #expect(equalVertical[0, 5] == Self.white && equalVertical[0, 6] == Self.red)
        // imgproxy trims before turning the source upright: for a source stored turned a quarter, its horizontal
        // sides are the upright image's top and bottom.
        var turned = tall
        turned.orientation = .right
        #expect(try Self.render(turned, ["t:10::1"]).size == PixelSize(width: 40, height: 38))
        #expect(try Self.render(turned, ["t:10::1", "ar:0"]).size == PixelSize(width: 40, height: 32))
    }

    // MARK: - Watermark

    /// A 10×10 opaque red watermark.
    static func mark() throws -> ProxyWatermark {
        ProxyWatermark(pixels: try PixelBuffer(width: 10, height: 10, filledWith: red))
    }

    @Test func watermarkIsPlacedByItsGravityWithItsOpacity() throws {
        let source = try Self.image(width: 100, height: 100) { _, _ in Self.grey }
        let corner = try Self.render(source, ["wm:1:nowe"], watermark: try Self.mark())
        #expect(corner[0, 0] == Self.red && corner[9, 9] == Self.red && corner[10, 10] == Self.grey)
        let faint = try Self.render(source, ["wm:0.5:soea"], watermark: try Self.mark())
        #expect(Self.near(faint[95, 95], RGBA(191, 64, 64), 1) && faint[89, 89] == Self.grey)
        // Offsets move it away from its edge (times dpr); the centre of 90 free pixels is imgproxy's 46.
        let moved = try Self.render(source, ["wm:1:ea:5:0"], watermark: try Self.mark())
        #expect(moved[85, 46] == Self.red && moved[94, 46] == Self.red && moved[95, 46] == Self.grey)
        #expect(moved[84, 46] == Self.grey && moved[85, 45] == Self.grey)
        // Scale: fitted into half the result (enlarged if need be).
        let scaled = try Self.render(source, ["wm:1:nowe:0:0:0.5"], watermark: try Self.mark())
        #expect(scaled[45, 45] == Self.red && scaled[55, 55] == Self.grey)
    }

    @Test func replicatedWatermarkTilesTheResultWithGaps() throws {
        let source = try Self.image(width: 100, height: 100) { _, _ in Self.grey }
        let tiled = try Self.render(source, ["wm:1:re"], watermark: try Self.mark())
        #expect((0..<100).allSatisfy { tiled[$0, $0] == Self.red && tiled[99 - $0, $0] == Self.red })
        // 10-pixel gaps make 20-pixel tiles, each copy 5 pixels in; five across, centred, start at 0.
        let spaced = try Self.render(source, ["wm:1:re:10:10"], watermark: try Self.mark())
        #expect(spaced[7, 7] == Self.red && spaced[27, 27] == Self.red && spaced[87, 47] == Self.red)
        #expect(spaced[2, 2] == Self.grey && spaced[20, 20] == Self.grey && spaced[7, 17] == Self.grey)
    }

    @Test func watermarkWithoutAConfiguredImageDoesNothing() throws {
        let source = try Self.image(width: 30, height: 30) { _, _ in Self.grey }
        let result = try Self.render(source, ["wm:1:nowe"])
        #expect(result.bytes == source.pixels.bytes)
    }

    // MARK: - Through the proxy

    /// `pixels` as a JPEG whose EXIF says orientation 6 (display turned 90° clockwise).
    static func rotatedJPEG(_ pixels: PixelBuffer) throws -> Data {
        let plain = try ImageCoders.shared.encode(Image(pixels: pixels), as: .jpeg,
                                                  options: EncodeOptions(quality: 0.95))
        // APP1: "Exif\0\0", a little-endian TIFF header, one IFD with Orientation (0x0112, SHORT) = 6.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
                             0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return plain.prefix(2) + Data(segment) + plain.dropFirst(2)
    }

    @Test func theDecodePlanFollowsAutoRotateAndDecodesTrimmedSourcesWhole() throws {
        // Displayed 3000×4000, stored 4000×3000 turned (EXIF 6).
        let turned = ImageProperties(format: .jpeg, size: PixelSize(width: 3000, height: 4000), orientation: .right)
        func plan(_ segments: [String]) throws -> SourceDecodePlan {
            try SourceDecodePlan(properties: turned, options: try ProcessingOptions(segments: segments), output: .jpeg,
                                 limits: DecodeLimits(maxPixels: 100_000_000), maximumFrames: 10)
        }
        let upright = try plan(["w:300"])
        #expect(upright.decodeOptions.applyOrientation && upright.geometry == PixelSize(width: 3000, height: 4000))
        let stored = try plan(["w:300", "ar:0"])
        #expect(!stored.decodeOptions.applyOrientation && stored.geometry == PixelSize(width: 4000, height: 3000))
        #expect(stored.decodeOptions.thumbnailPixelSize == PixelSize(width: 300, height: 225))
        #expect(try plan(["w:300", "t:10"]).decodeOptions.thumbnailPixelSize == nil)
    }

    @Test func autoRotateOffKeepsTheStoredOrientation() async throws {
        // Stored 40×20: red left half, blue right half. Turned upright it is 20×40, red on top.
        let stored = try Self.image(width: 40, height: 20) { x, _ in x < 20 ? Self.red : Self.blue }
        try await ProxyHarness.with { harness in
            harness.origin.serve("turned.jpg", data: try Self.rotatedJPEG(stored.pixels), contentType: "image/jpeg")
            let upright = try ProxyHarness.decode(await harness.get(harness.plainPath([], "turned.jpg", ext: "png")))
            #expect(upright.size == PixelSize(width: 20, height: 40))
            #expect(Self.near(upright.pixels[10, 5], Self.red, 40) && Self.near(upright.pixels[10, 35], Self.blue, 40))
            let asStored = try ProxyHarness.decode(await harness.get(harness.plainPath(["ar:0"], "turned.jpg",
                                                                                       ext: "png")))
            #expect(asStored.size == PixelSize(width: 40, height: 20))
            #expect(Self.near(asStored.pixels[5, 10], Self.red, 40))
            #expect(Self.near(asStored.pixels[35, 10], Self.blue, 40))
        }
    }

    @Test func paddingBackgroundAndWatermarkThroughTheProxy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-\(UUID().uuidString).png")
        try ImageCoders.shared.encode(Image(pixels: try Self.mark().pixels), as: .png).write(to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let grey = try Self.image(width: 100, height: 100) { _, _ in Self.grey }
        try await ProxyHarness.with(configuring: { $0.watermarkPath = folder.path }) { harness in
            harness.origin.serve("grey.png", data: try ImageCoders.shared.encode(grey, as: .png),
                                 contentType: "image/png")
            let path = harness.plainPath(["pd:10", "bg:0000ff", "wm:1:soea"], "grey.png", ext: "png")
            // Before the watermark is loaded the option draws nothing.
            let unmarked = try ProxyHarness.decode(await harness.get(path)).pixels
            #expect(unmarked[119, 119] == Self.blue)
            try await harness.proxy.loadWatermark()
            let response = await harness.get(harness.plainPath(["pd:10", "bg:0000ff", "wm:1:soea", "cb:1"],
                                                               "grey.png", ext: "png"))
            #expect(response.status == 200)
            let result = try ProxyHarness.decode(response).pixels
            #expect(result.size == PixelSize(width: 120, height: 120))
            // Padding first, in the background; the watermark last, in the corner of the padded result.
            #expect(result[0, 0] == Self.blue && result[10, 10] == Self.grey)
            #expect(result[119, 119] == Self.red && result[110, 110] == Self.red && result[109, 109] == Self.grey)
            #expect(result[115, 105] == Self.blue)
        }
    }
}
