import Foundation
import Testing
import WebImage
import WebImageAVIF

@testable import WebImageServer

/// imgproxy's `preserve_hdr`: a source of more than 8 bits a sample keeps them in an answer whose format can hold
/// them, through every step of the rendering; without it (the default) answers are 8-bit.
@Suite struct ProxyPreserveHDRTests {
    static let coders = ImageCoders(coders: ImageCoders.builtIn + [AVIFCoder()])

    /// A smooth 16-bit ramp (low bytes 8 bits cannot hold), gray when asked.
    static func source(gray: Bool = false) throws -> Data {
        let width = 96, height = 64
        let samples = (0..<(width * height)).flatMap { index -> [UInt16] in
            let x = index % width, y = index / width
            let red = UInt16(x * 683 + y * 5), green = gray ? red : UInt16(65_535 - y * 1021 - x)
            let blue = gray ? red : UInt16((x * 311 + y * 401) % 65_536)
            return [red, green, blue, 65_535]
        }
        let deep = try DeepPixelBuffer(width: width, height: height, samples: samples)
        return try ImageCoders.shared.encode(Image(frames: [ImageFrame(deep: deep)]), as: .png)
    }

    static func serveSources(_ harness: ProxyHarness) throws {
        harness.origin.serve("deep.png", data: try source(), contentType: "image/png")
        harness.origin.serve("gray.png", data: try source(gray: true), contentType: "image/png")
    }

    /// The bit depth and colour type of a PNG answer's header.
    static func pngHeader(_ body: Data) -> (depth: UInt8, colorType: UInt8) { (body[24], body[25]) }

    static func deepSamples(_ body: Data) throws -> DeepPixelBuffer {
        try #require(try coders.decode(body, options: DecodeOptions(keepsHighBitDepth: true)).frames[0].deepPixels)
    }

    @Test func aSixteenBitSourceKeepsItsBitsThroughEveryStepOnlyWhenAsked() async throws {
        try await ProxyHarness.with(coders: Self.coders) { harness in
            try Self.serveSources(harness)
            let steps = ["w:40", "bl:1.5", "sh:0.7", "pix:3", "pd:4:2", "rot:90", "fl:1:0", "ex:1", "h:30"]
            let deep = await harness.get(harness.plainPath(["ph:1"] + steps, "deep.png", ext: "png"))
            let plain = await harness.get(harness.plainPath(steps, "deep.png", ext: "png"))
            let eightBit = await harness.get(harness.plainPath(["ph:0"] + steps, "deep.png", ext: "png"))
            #expect(deep.status == 200 && plain.status == 200 && eightBit.status == 200)
            let deepBody = Data(deep.body.readableBytesView), plainBody = Data(plain.body.readableBytesView)
            #expect(Self.pngHeader(deepBody) == (16, 6))  // the padding is transparent
            #expect(Self.pngHeader(plainBody).depth == 8)
            #expect(Data(eightBit.body.readableBytesView) == plainBody)

            let samples = try Self.deepSamples(deepBody)
            let reference = try Self.coders.decode(plainBody)
            #expect(samples.size == reference.size)
            #expect(samples.samples.filter { $0 % 257 != 0 }.count > samples.samples.count / 4)
            // The same picture: rounded to 8 bits it is within a few levels of the 8-bit pipeline's.
            let rounded = try samples.eightBitPixels().bytes
            let largest = zip(rounded, reference.pixels.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(largest <= 3, "off by \(largest) from the 8-bit rendering")
        }
    }

    @Test func grayStaysGrayAndAVIFAnswersGetTwelveBits() async throws {
        try await ProxyHarness.with(coders: Self.coders) { harness in
            try Self.serveSources(harness)
            let gray = await harness.get(harness.plainPath(["ph:1", "w:48"], "gray.png", ext: "png"))
            #expect(Self.pngHeader(Data(gray.body.readableBytesView)) == (16, 0))
            // Without it, gray still stays gray (imgproxy's GRAYSCALE16 becomes GRAYSCALE8).
            let grayEight = await harness.get(harness.plainPath(["w:48"], "gray.png", ext: "png"))
            #expect(Self.pngHeader(Data(grayEight.body.readableBytesView)) == (8, 0))
            let avif = await harness.get(harness.plainPath(["ph:1", "w:48", "q:100"], "deep.png", ext: "avif"))
            #expect(avif.status == 200)
            let samples = try Self.deepSamples(Data(avif.body.readableBytesView))
            #expect(samples.significantBits == 12 && samples.size == PixelSize(width: 48, height: 32))
            // A format with 8 bits only answers as usual.
            let jpeg = await harness.get(harness.plainPath(["ph:1", "w:48"], "deep.png", ext: "jpg"))
            #expect(jpeg.status == 200)
            #expect(try Self.coders.decode(Data(jpeg.body.readableBytesView)).size.width == 48)
        }
    }

    @Test func theServersDefaultIsWhatAURLWithoutTheOptionGets() async throws {
        try await ProxyHarness.with(configuring: { $0.preservesHDR = true }, coders: Self.coders) { harness in
            try Self.serveSources(harness)
            let kept = await harness.get(harness.plainPath(["w:40"], "deep.png", ext: "png"))
            #expect(Self.pngHeader(Data(kept.body.readableBytesView)).depth == 16)
            let refused = await harness.get(harness.plainPath(["ph:0", "w:40"], "deep.png", ext: "png"))
            #expect(Self.pngHeader(Data(refused.body.readableBytesView)).depth == 8)
        }
    }

    @Test func trimCropsBackgroundAndTheWatermarkKeepTheBitsToo() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wm-\(UUID().uuidString).png")
        let mark = try PixelBuffer(width: 12, height: 8, filledWith: RGBA(250, 20, 20, 160))
        try ImageCoders.shared.encode(Image(pixels: mark), as: .png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await ProxyHarness.with(configuring: { $0.watermarkPath = file.path }, coders: Self.coders) { harness in
            try Self.serveSources(harness)
            try await harness.proxy.loadWatermark()
            let steps = ["t:5", "c:70:50:sm", "pd:6", "bg:ff8000", "wm:0.8:ce"]
            let deep = await harness.get(harness.plainPath(["ph:1"] + steps, "deep.png", ext: "png"))
            let plain = await harness.get(harness.plainPath(steps, "deep.png", ext: "png"))
            let deepBody = Data(deep.body.readableBytesView), plainBody = Data(plain.body.readableBytesView)
            #expect(deep.status == 200 && Self.pngHeader(deepBody) == (16, 2))  // flattened: no alpha
            let samples = try Self.deepSamples(deepBody)
            let reference = try Self.coders.decode(plainBody)
            #expect(samples.size == PixelSize(width: 82, height: 62) && reference.size == samples.size)
            // The padding is the background, the centre the watermark over the picture.
            #expect(samples[1, 1] == SIMD4(65_535, 32_896, 0, 65_535))
            let rounded = try samples.eightBitPixels().bytes
            let largest = zip(rounded, reference.pixels.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(largest <= 2, "off by \(largest) from the 8-bit rendering")
            #expect(samples.samples.filter { $0 % 257 != 0 }.count > samples.samples.count / 4)
        }
    }
}
