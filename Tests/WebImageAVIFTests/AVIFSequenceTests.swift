import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageAVIF

/// An AVIF image sequence written by avifenc (lossless, 100, 250 and 40 ms), against its PNG sources.
@Suite struct AVIFSequenceTests {
    let coder = AVIFCoder()

    func sources() throws -> [[UInt8]] {
        try (0..<3).map { try AVIFFixtures.rgba("src-frame\($0).rgba") }
    }

    @Test func everyFrameWithItsDuration() throws {
        let image = try coder.decode(try AVIFFixtures.data("sequence.avif"), options: DecodeOptions())
        #expect(image.frames.count == 3)
        #expect(image.size == PixelSize(width: 32, height: 24))
        #expect(image.loopCount == 0)
        #expect(image.frames.map(\.duration) == [0.1, 0.25, 0.04])
        #expect(image.frames.map(\.pixels.bytes) == (try sources()))
    }

    @Test func firstFrameOnly() throws {
        let image = try coder.decode(try AVIFFixtures.data("sequence.avif"), options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.pixels.bytes == (try sources())[0])
    }

    @Test(arguments: 0..<3) func oneFrameByIndex(index: Int) throws {
        let image = try coder.decode(try AVIFFixtures.data("sequence.avif"), options: DecodeOptions(frameIndex: index))
        #expect(image.frames.count == 1 && image.loopCount == 1)
        #expect(image.pixels.bytes == (try sources())[index])
    }

    @Test func frameIndexPastTheEndIsRefused() throws {
        for (name, index) in [("sequence.avif", 3), ("rgb8-lossless.avif", 1), ("rgb8-lossless.avif", -1)] {
            let data = try AVIFFixtures.data(name)
            #expect(errorCode { _ = try coder.decode(data, options: DecodeOptions(frameIndex: index)) }
                    == .invalidParameter)
        }
    }

    @Test func thumbnailsOfEveryFrame() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let image = try coder.decode(try AVIFFixtures.data("sequence.avif"), options: options)
        #expect(image.frames.count == 3 && image.flags.contains(.thumbnail))
        #expect(image.frames.allSatisfy { $0.pixels.size == PixelSize(width: 16, height: 12) })
    }

    @Test func frameLimitsAreCheckedFromTheHeader() throws {
        let data = try AVIFFixtures.data("sequence.avif")
        let fewFrames = DecodeOptions(limits: DecodeLimits(maxFrames: 2))
        #expect(errorCode { _ = try coder.decode(data, options: fewFrames) } == .imageTooLarge)
        let fewPixels = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 32 * 24 * 2))
        #expect(errorCode { _ = try coder.decode(data, options: fewPixels) } == .imageTooLarge)
        var firstOnly = fewFrames
        firstOnly.firstFrameOnly = true
        #expect(try coder.decode(data, options: firstOnly).frames.count == 1)
    }
}

/// A sequence whose every frame has its own duration, so its time-to-sample table has a run per frame.
@Suite struct AVIFTimingTableTests {
    let coder = AVIFCoder(speed: 10)

    func sequence(frames: Int) throws -> (data: Data, durations: [Double]) {
        let pixels = try PixelBuffer(width: 2, height: 2, filledWith: RGBA(10, 200, 30))
        let durations = (0..<frames).map { Double(20 + $0 % 500) / 1000 }
        let image = Image(frames: durations.map { ImageFrame(pixels: pixels, duration: $0) }, loopCount: 0)
        return (try coder.encode(image, as: .avif, options: EncodeOptions(quality: 0.5)), durations)
    }

    /// Reading 1 700 durations from the table is linear; libavif 0.11 would walk it 1 700 × 1 700 times.
    /// Decoding every frame would make libavif do so, and is refused; one frame is fine.
    @Test func manyTimingRuns() throws {
        let (data, durations) = try sequence(frames: 1700)
        let properties = try coder.properties(of: data)
        #expect(properties.frameCount == 1700 && properties.frameDurations == durations)
        #expect(errorCode { _ = try coder.decode(data, options: DecodeOptions()) } == .imageTooLarge)
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1 && first.frames[0].duration == durations[0])
    }

    @Test func fewTimingRunsDecodeWhole() throws {
        let (data, durations) = try sequence(frames: 40)
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.frames.map(\.duration) == durations)
        #expect(try coder.properties(of: data) == ImageProperties(of: image))
    }
}
