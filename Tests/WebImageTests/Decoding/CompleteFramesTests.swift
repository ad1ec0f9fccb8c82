import Foundation
import Testing
@testable import WebImage

/// The lenient decodes of animated WebP and APNG (`decodeCompleteFrames`): a cut or damaged file gives the frames
/// that arrived whole, pixel for pixel as in the whole file's decode, plus the documented error.
@Suite struct CompleteFramesTests {
    static func frameBytes(_ image: Image) -> [[UInt8]] { image.frames.map(\.pixels.bytes) }

    /// Where each ANMF chunk of a WebP file ends (a test-side walk over the RIFF layout).
    static func animationFrameEnds(_ data: [UInt8]) -> [Int] {
        var offset = 12, ends: [Int] = []
        while offset + 8 <= data.count {
            let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16
                | Int(data[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            if data[offset..<(offset + 4)].elementsEqual("ANMF".utf8) { ends.append(end) }
            offset = end
        }
        return ends
    }

    /// Where each fcTL chunk of a PNG file ends, in file order (a test-side walk over the chunk layout).
    static func frameControlEnds(_ data: [UInt8]) -> [Int] {
        var offset = 8, ends: [Int] = []
        while offset + 12 <= data.count {
            let length = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            if data[(offset + 4)..<(offset + 8)].elementsEqual("fcTL".utf8) { ends.append(end) }
            offset = end
        }
        return ends
    }

    @Test(arguments: ["webp/animated.webp", "webp/anim-blend.webp", "webp/anim-lossy-40.webp",
                      "webp/anim-lossless-40.webp"])
    func cutAnimatedWebPGivesItsWholeFrames(_ path: String) throws {
        let data = try Fixtures.data(path)
        let whole = try WebPCoder().decode(data, options: DecodeOptions())
        let complete = try WebPCoder().decodeCompleteFrames(data, options: DecodeOptions())
        #expect(complete.error == nil)
        #expect(Self.frameBytes(complete.image) == Self.frameBytes(whole))

        let ends = Self.animationFrameEnds(Array(data))
        #expect(ends.count == whole.frames.count)
        let counts = Set([1, 2, ends.count / 2, ends.count - 1]).filter { $0 >= 1 && $0 < ends.count }.sorted()
        for count in counts {
            for cut in [ends[count - 1], ends[count - 1] + 1, ends[count] - 1] {
                let prefix = data.prefix(cut)
                #expect(IncrementalFeeding.errorCode { _ = try WebPCoder().decode(prefix, options: DecodeOptions()) }
                    == .badImageData, "the strict decode refuses \(path) cut at \(cut)")
                let result = try WebPCoder().decodeCompleteFrames(prefix, options: DecodeOptions())
                #expect(result.image.frames.count == count, "\(path) cut at \(cut)")
                #expect(Self.frameBytes(result.image) == Array(Self.frameBytes(whole).prefix(count)))
                #expect(result.image.frames.map(\.duration) == Array(whole.frames.prefix(count).map(\.duration)))
                #expect(result.image.loopCount == whole.loopCount)
                #expect(result.error?.code == .badImageData)
                #expect(result.error?.message.contains("the data ends after \(count) whole frames") == true)
            }
        }
        // Before the first frame is whole there is nothing to show.
        #expect(IncrementalFeeding.errorCode {
            _ = try WebPCoder().decodeCompleteFrames(data.prefix(ends[0] - 1), options: DecodeOptions())
        } == .badImageData)
    }

    @Test func aCutAnimatedWebPStillHonoursTheLimits() throws {
        let data = try Fixtures.data("webp/anim-lossy-40.webp")
        let cut = data.prefix(Self.animationFrameEnds(Array(data))[20])
        let limits = DecodeLimits(maxFrames: 10)
        #expect(IncrementalFeeding.errorCode {
            _ = try WebPCoder().decodeCompleteFrames(cut, options: DecodeOptions(limits: limits))
        } == .imageTooLarge)
    }

    @Test func stillWebPIsWholeOrRefused() throws {
        let data = try Fixtures.data("webp/lossy.webp")
        let result = try WebPCoder().decodeCompleteFrames(data, options: DecodeOptions())
        #expect(result.error == nil)
        #expect(result.image.pixels.bytes == (try WebPCoder().decode(data, options: DecodeOptions())).pixels.bytes)
        #expect(IncrementalFeeding.errorCode {
            _ = try WebPCoder().decodeCompleteFrames(data.dropLast(), options: DecodeOptions())
        } == .badImageData)
    }

    @Test(arguments: ["apng/dispose-previous.png", "apng/blend-over-offsets.png", "apng/default-hidden.png",
                      "apng/default-is-first-frame.png", "apng/split-chunks.png", "apng/pillow.png", "png/apng.png"])
    func cutAPNGGivesItsWholeFrames(_ path: String) throws {
        let data = try Fixtures.data(path)
        let whole = try PNGCoder().decode(data, options: DecodeOptions())
        let complete = try PNGCoder().decodeCompleteFrames(data, options: DecodeOptions())
        #expect(complete.error == nil)
        #expect(Self.frameBytes(complete.image) == Self.frameBytes(whole))

        // Frame j is known to be whole once frame j + 1's fcTL has arrived (the last one, once IEND has).
        let controls = Self.frameControlEnds(Array(data))
        #expect(controls.count == whole.frames.count)
        // Inside IEND the last frame is not known to be whole yet.
        var cuts = [(cut: data.count - 1, count: controls.count - 1)]
        for next in 1..<controls.count { cuts += [(controls[next], next), (controls[next] - 1, next - 1)] }
        for (cut, count) in cuts where count >= 1 {
            let prefix = data.prefix(cut)
            #expect(IncrementalFeeding.errorCode { _ = try PNGCoder().decode(prefix, options: DecodeOptions()) }
                == .badImageData)
            let result = try PNGCoder().decodeCompleteFrames(prefix, options: DecodeOptions())
            #expect(result.image.frames.count == count, "\(path) cut at \(cut)")
            #expect(Self.frameBytes(result.image) == Array(Self.frameBytes(whole).prefix(count)))
            #expect(result.error?.code == .badImageData)
            #expect(result.error?.message.contains("the data ends inside") == true, "\(path) cut at \(cut)")
        }
        let firstWhole = controls.count > 1 ? controls[1] : data.count
        #expect(IncrementalFeeding.errorCode {
            _ = try PNGCoder().decodeCompleteFrames(data.prefix(firstWhole - 1), options: DecodeOptions())
        } == .badImageData)
    }

    @Test func apngWithFewerFramesThanDeclaredOrACorruptFrameStopsThere() throws {
        // frame-count-short: acTL declares 4 frames, the file holds 3 and ends with IEND.
        let shortData = try Fixtures.data("apng/frame-count-short.png")
        let short = try PNGCoder().decodeCompleteFrames(shortData, options: DecodeOptions())
        #expect(short.error?.code == .badImageData)
        #expect(short.error?.message.contains("acTL declares 4 frames") == true)
        #expect(short.image.frames.count == 3)

        // corrupt-frame-data: frame 0 is solid red, frame 1's zlib stream is broken.
        let corrupt = try PNGCoder().decodeCompleteFrames(Fixtures.data("apng/corrupt-frame-data.png"),
                                                          options: DecodeOptions())
        #expect(corrupt.image.frames.count == 1)
        #expect(GIFTesting.mismatch(corrupt.image.pixels) { _, _ in APNGColors.red } == nil)
        #expect(corrupt.error?.code == .badImageData)
    }

    @Test func apngLimitsAreNeverLenient() throws {
        let data = try Fixtures.data("apng/bomb-frames.png")
        #expect(IncrementalFeeding.errorCode {
            _ = try PNGCoder().decodeCompleteFrames(data.dropLast(5), options: DecodeOptions())
        } == .imageTooLarge)
    }
}
