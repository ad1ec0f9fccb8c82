import Testing
@testable import WebImage

@Suite struct FilterPipelineTests {
    static let invert = ImageTransformers.Filter(name: "invert") { pixels in
        let bytes = pixels.bytes.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
        return try PixelBuffer(width: pixels.width, height: pixels.height, rgba: bytes)
    }

    func image() throws -> Image {
        Image(pixels: try PixelBuffer(width: 4, height: 2, filledWith: RGBA(10, 20, 30)), format: .png, scale: 3,
              orientation: .right)
    }

    @Test func filterRunsOnEveryFrameAndKeepsMetadata() throws {
        var source = try image()
        source.frames.append(ImageFrame(pixels: try PixelBuffer(width: 4, height: 2, filledWith: RGBA(0, 0, 0)), duration: 1))
        let result = try Self.invert.transform(source)
        #expect(result.frames.map { $0.pixels[3, 1] } == [RGBA(245, 235, 225), RGBA(255, 255, 255)])
        #expect(result.frames[1].duration == 1)
        #expect(result.format == .png && result.scale == 3 && result.orientation == .right)
        #expect(result.flags.contains(.transformed))
        #expect(!result.hasAlpha)
    }

    @Test func filterWithoutMetadataMakesANewImage() throws {
        let filter = ImageTransformers.Filter(name: "same", preservesMetadata: false) { $0 }
        let result = try filter.transform(try image())
        #expect(result.format == .unknown && result.scale == 1 && result.orientation == .up)
        #expect(!filter.preservesMetadata)
    }

    @Test func filterTransparencyIsMeasured() throws {
        let clear = ImageTransformers.Filter(name: "clear") { pixels in
            try PixelBuffer(width: pixels.width, height: pixels.height, filledWith: RGBA(0, 0, 0, 0))
        }
        #expect(try clear.transform(try image()).hasAlpha)
        let opaque = ImageTransformers.Filter(name: "opaque") { pixels in
            try PixelBuffer(width: pixels.width, height: pixels.height, filledWith: RGBA(1, 1, 1))
        }
        var withAlpha = try image()
        withAlpha.flags.insert(.hasAlpha)
        #expect(!(try opaque.transform(withAlpha).hasAlpha))
    }

    @Test func framesOfDifferentSizesAreAnError() throws {
        var source = try image()
        source.frames.append(ImageFrame(pixels: try PixelBuffer(width: 4, height: 2, filledWith: RGBA(0, 0, 0))))
        let shrinkDark = ImageTransformers.Filter(name: "odd") { pixels in
            pixels[0, 0] == RGBA(0, 0, 0) ? try PixelBuffer(width: 1, height: 1, filledWith: RGBA(0, 0, 0)) : pixels
        }
        #expect(TransformTestSupport.error(shrinkDark, on: source) == .invalidParameter)
    }

    @Test func filterErrorsPassThrough() throws {
        let failing = ImageTransformers.Filter(name: "fail") { _ in throw ImageError(.unsupportedFormat, "no") }
        #expect(TransformTestSupport.error(failing, on: try image()) == .unsupportedFormat)
    }

    @Test func pipelineAppliesInOrder() throws {
        let source = Image(pixels: try TransformTestSupport.numbered(width: 4, height: 3))
        let cropThenFlip = ImageTransformers.Pipeline([
            .crop(PixelRect(x: 1, y: 0, width: 3, height: 3)), .flip(horizontal: true, vertical: false),
        ])
        let flipThenCrop = ImageTransformers.Pipeline([
            .flip(horizontal: true, vertical: false), .crop(PixelRect(x: 1, y: 0, width: 3, height: 3)),
        ])
        let first = try cropThenFlip.transform(source), second = try flipThenCrop.transform(source)
        #expect(first.pixels[0, 0] == TransformTestSupport.numberedColor(x: 3, y: 0, width: 4))
        #expect(second.pixels[0, 0] == TransformTestSupport.numberedColor(x: 2, y: 0, width: 4))
        #expect(first.flags.contains(.transformed))
    }

    @Test func pipelineStopsAtTheFirstErrorAndReportsMetadata() throws {
        let pipeline = ImageTransformers.Pipeline([.blur(radius: 1), .rotate(degrees: .nan, fitSize: true), Self.invert])
        #expect(TransformTestSupport.error(pipeline, on: try image()) == .invalidParameter)
        #expect(pipeline.preservesMetadata)
        let dropping = ImageTransformers.Pipeline([.blur(radius: 1), ImageTransformers.Filter(name: "x", preservesMetadata: false) { $0 }])
        #expect(!dropping.preservesMetadata)
        #expect(try dropping.transform(try image()).format == .unknown)
    }

    @Test func emptyPipelineKeepsTheImage() throws {
        let source = try image()
        let result = try ImageTransformers.Pipeline([]).transform(source)
        #expect(result.pixels.bytes == source.pixels.bytes)
        #expect(result.flags.contains(.transformed))
    }
}
