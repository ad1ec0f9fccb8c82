import Foundation
import Testing
@testable import WebImage

/// A GIF's download may stop after its first frame when the decode reads that frame alone; the prefix then decodes
/// to the same pixels as the whole file's first frame.
@Suite struct GIFPrefixScannerTests {
    /// A three-frame 60×40 GIF (red, green, blue, 100 ms each, looping) with noise, so each frame's data is long.
    static func animation() throws -> Data {
        try ImageCoders.shared.encode(Image(frames: FramePrefixTestSupport.noisyFrames(), loopCount: 0), as: .gif)
    }

    /// Feeds `data` in `chunk`-byte steps, as a download would, until the scanner decides.
    static func verdict(_ data: Data, chunk: Int, options: DecodeOptions?) -> PrefixVerdict {
        FramePrefixTestSupport.verdict(data, chunk: chunk, GIFPrefixScanner(planning: { _ in options }))
    }

    @Test("a first-frame decode stops after the first frame, whatever the chunks", arguments: [1, 7, 256, 100_000])
    func firstFrameStops(_ chunk: Int) throws {
        let stop = try FramePrefixTestSupport.expectFirstFrameStop(try Self.animation(), chunk: chunk) { options in
            GIFPrefixScanner(planning: { _ in options })
        }
        #expect(stop?.prefix.last == 0x3B)
    }

    @Test func everyFrameAnotherFrameNoDecodeOrAnotherFormatReadsOnToTheEnd() throws {
        let data = try Self.animation()
        #expect(Self.verdict(data, chunk: 64, options: DecodeOptions()) == .never)
        #expect(Self.verdict(data, chunk: 64, options: DecodeOptions(firstFrameOnly: true, frameIndex: 2)) == .never)
        #expect(Self.verdict(data, chunk: 64, options: nil) == .never)
        #expect(Self.verdict(Data("GIF89a".utf8) + Data(count: 7) + Data([0x3B]), chunk: 64,
                             options: DecodeOptions(firstFrameOnly: true)) == .never)
        #expect(Self.verdict(Data("not a gif at all".utf8), chunk: 64,
                             options: DecodeOptions(firstFrameOnly: true)) == .never)
        // Cut inside the first frame's data: still waiting for more.
        #expect(Self.verdict(data.prefix(200), chunk: 64, options: DecodeOptions(firstFrameOnly: true)) == .needsMore)
    }
}
