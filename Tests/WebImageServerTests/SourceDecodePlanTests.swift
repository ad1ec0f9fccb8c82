import Foundation
import Testing
import WebImage

@testable import WebImageServer

@Suite struct SourceDecodePlanTests {
    private static let photo = ImageProperties(format: .jpeg, size: PixelSize(width: 4000, height: 3000))

    private func plan(_ segments: [String], _ properties: ImageProperties = photo, output: OutputFormat = .jpeg)
        throws -> SourceDecodePlan
    {
        let options = try ProcessingOptions(segments: segments)
        return try SourceDecodePlan(properties: properties, options: options, output: output,
                                    limits: DecodeLimits(maxPixels: 100_000_000), maximumFrames: 10)
    }

    @Test func aThumbnailDecodesOnlyThePixelsItsScalingUses() throws {
        let width = try plan(["w:300"])
        #expect(width.decodeOptions.thumbnailPixelSize == PixelSize(width: 300, height: 225))
        #expect(!width.decodeOptions.preserveAspectRatio && width.decodeOptions.firstFrameOnly)
        #expect(width.geometry == PixelSize(width: 4000, height: 3000))
        // fill covers the box: the larger of the two scales (0.1) decides.
        #expect(try plan(["rs:fill:300:300"]).decodeOptions.thumbnailPixelSize == PixelSize(width: 400, height: 300))
        // dpr multiplies the box; rounding is upwards (3000 × 0.0375 = 112.5).
        #expect(try plan(["w:75", "dpr:2"]).decodeOptions.thumbnailPixelSize == PixelSize(width: 150, height: 113))
        // A crop of the source keeps its scale: a quarter of the source scaled to 300 wide needs 600 × 450 of it.
        #expect(try plan(["c:2000:1500", "w:300"]).decodeOptions.thumbnailPixelSize
                == PixelSize(width: 600, height: 450))
    }

    @Test func theRotationIsWorkedOutInTheRotatedAxesAndAskedForInTheSourcesOwn() throws {
        let turned = try plan(["rot:90", "w:300"])
        #expect(turned.geometry == PixelSize(width: 3000, height: 4000))
        // 300 × 400 after the turn is 400 × 300 before it.
        #expect(turned.decodeOptions.thumbnailPixelSize == PixelSize(width: 400, height: 300))
        #expect(try plan(["rot:180", "w:300"]).decodeOptions.thumbnailPixelSize == PixelSize(width: 300, height: 225))
    }

    @Test func fullDecodesWhenNothingSmallerWouldDo() throws {
        #expect(try plan([]).decodeOptions.thumbnailPixelSize == nil)
        #expect(try plan(["w:8000"]).decodeOptions.thumbnailPixelSize == nil)  // no enlarging: the whole source
        #expect(try plan(["w:8000", "el:1"]).decodeOptions.thumbnailPixelSize == nil)  // scaled up from full size
        #expect(try plan(["rs:force:300:3000"]).decodeOptions.thumbnailPixelSize == nil)  // one axis at full size
        // Offsets in pixels place a crop on the full source.
        #expect(try plan(["c:2000:1500:nowe:10:10", "w:300"]).decodeOptions.thumbnailPixelSize == nil)
        #expect(try plan(["c:2000:1500:nowe:0.1:0.1", "w:300"]).decodeOptions.thumbnailPixelSize != nil)
    }

    @Test func framesAreChosenAndCountedFromTheHeader() throws {
        let animation = ImageProperties(format: .gif, size: PixelSize(width: 60, height: 40), frameCount: 3)
        #expect(try plan(["frame:2"], animation, output: .png).decodeOptions.frameIndex == 2)
        #expect(try plan(["frame:2"], animation, output: .png).picksFrame)
        #expect(try !plan(["frame:2"], animation, output: .png).decodeOptions.firstFrameOnly)
        #expect(try plan(["frame:0"], animation, output: .gif).decodeOptions.firstFrameOnly)
        #expect(try plan([], animation, output: .jpeg).decodeOptions.firstFrameOnly)
        #expect(try !plan([], animation, output: .gif).decodeOptions.firstFrameOnly)
        #expect(throws: ProxyError.invalidURL("frame 3 does not exist: the source has 3")) {
            try plan(["frame:3"], animation, output: .png)
        }
        let long = ImageProperties(format: .gif, size: PixelSize(width: 60, height: 40), frameCount: 11)
        #expect(throws: ProxyError(status: 422, "the source has 11 frames, over the limit of 10")) {
            try plan([], long, output: .webp)
        }
        #expect(try plan([], long, output: .jpeg).decodeOptions.firstFrameOnly)  // one frame is no work
    }

    @Test func aCropWorkedOutOnTheFullSourceScalesToTheDecodedOne() {
        let crop = ResizePlan.CropStep(size: PixelSize(width: 2000, height: 1500), gravity: Gravity(.center))
        let full = PixelSize(width: 4000, height: 3000)
        #expect(crop.scaled(from: full, to: PixelSize(width: 600, height: 450)).size
                == PixelSize(width: 300, height: 225))
        #expect(crop.scaled(from: full, to: full) == crop)
        let sliver = ResizePlan.CropStep(size: PixelSize(width: 1, height: 3000), gravity: Gravity(.west))
        #expect(sliver.scaled(from: full, to: PixelSize(width: 40, height: 30)).size == PixelSize(width: 1, height: 30))
    }
}

/// The proxy decodes sources at the size each answer needs: the answers have the sizes a full decode gives, and
/// pixels that agree with it.
@Suite struct ReducedDecodeTests {
    /// Smooth gradients and a large disc: detail a thumbnail keeps, so both paths must agree closely.
    static func smoothPhoto(width: Int, height: Int) throws -> Data {
        let pixels = try PixelBuffer(width: width, height: height) { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    let dx = Double(x - width / 2), dy = Double(y - height / 2)
                    let inside = (dx * dx + dy * dy).squareRoot() < Double(height) / 3
                    bytes[offset] = UInt8(x * 255 / (width - 1))
                    bytes[offset + 1] = UInt8(y * 255 / (height - 1))
                    bytes[offset + 2] = inside ? 220 : 30
                    bytes[offset + 3] = 255
                }
            }
        }
        return try ImageCoders.shared.encode(Image(pixels: pixels), as: .jpeg, options: EncodeOptions(quality: 0.95))
    }

    /// Peak signal-to-noise ratio of the colour channels, in dB.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let colour = zip(a.bytes, b.bytes).enumerated().filter { $0.offset % 4 != 3 }
        let meanSquare = colour.reduce(0.0) { $0 + pow(Double($1.element.0) - Double($1.element.1), 2) }
            / Double(colour.count)
        return meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
    }

    @Test(arguments: [["w:150"], ["rs:fill:100:100"], ["c:600:450:so", "w:120"], ["rot:90", "h:90"]])
    func answersMatchAFullDecode(_ segments: [String]) async throws {
        let source = try Self.smoothPhoto(width: 1200, height: 900)
        try await ProxyHarness.with { harness in
            harness.origin.serve("smooth.jpg", data: source, contentType: "image/jpeg")
            let response = await harness.get(harness.plainPath(segments, "smooth.jpg", ext: "png"))
            #expect(response.status == 200)
            let answered = try ProxyHarness.decode(response)
            let options = try ProcessingOptions(segments: segments)
            let full = try ProxyRenderer().render(try ImageCoders.shared.decode(source), options: options, format: .png)
            let expected = try ImageCoders.shared.decode(full)
            #expect(answered.size == expected.size)
            #expect(Self.psnr(answered.pixels, expected.pixels) >= 35)  // measured 37–44 dB
        }
    }

    @Test func aSourceThatDoesNotDecodeIsNeverKept() async throws {
        let photo = try Self.smoothPhoto(width: 120, height: 90)
        // Refused results are not remembered here, so each request reaches the source loader (what is checked).
        try await ProxyHarness.with(configuring: { $0.failureMemory = .zero }) { harness in
            harness.origin.serve("cut.jpg", data: photo.prefix(photo.count / 2), contentType: "image/jpeg")
            for _ in 0..<2 {
                #expect(await harness.get(harness.plainPath(["w:60"], "cut.jpg")).status == 422)
            }
            #expect(harness.origin.log.count("/files/cut.jpg") == 2)
            harness.origin.serve("cut.jpg", data: photo, contentType: "image/jpeg")
            #expect(await harness.get(harness.plainPath(["w:60"], "cut.jpg")).status == 200)
            #expect(await harness.get(harness.plainPath(["w:30"], "cut.jpg")).status == 200)
            #expect(harness.origin.log.count("/files/cut.jpg") == 3)  // the whole one is kept: no fetch for w:30
        }
    }
}
