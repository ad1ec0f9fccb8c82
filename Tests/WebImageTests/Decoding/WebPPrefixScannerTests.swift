import Foundation
import Testing
@testable import WebImage

/// An animated WebP's download may stop after its first frame when the decode reads that frame alone; the prefix
/// then decodes to the same pixels as the whole file's first frame.
@Suite struct WebPPrefixScannerTests {
    /// A three-frame 60×40 animation (red, green, blue with noise, 100 ms each, looping) carrying `profile` and
    /// `metadata`.
    static func animation(profile: ColorProfile? = nil, metadata: ImageMetadata? = nil) throws -> Data {
        var image = Image(frames: try FramePrefixTestSupport.noisyFrames(), loopCount: 0)
        image.colorProfile = profile
        image.metadata = metadata
        return try ImageCoders.shared.encode(image, as: .webp, options: EncodeOptions(lossless: true))
    }

    /// Feeds `data` in `chunk`-byte steps, as a download would, until the scanner decides.
    static func verdict(_ data: Data, chunk: Int, options: DecodeOptions?) -> PrefixVerdict {
        FramePrefixTestSupport.verdict(data, chunk: chunk, WebPPrefixScanner(planning: { _ in options }))
    }

    @Test("a first-frame decode stops after the first frame, whatever the chunks", arguments: [1, 7, 256, 100_000])
    func firstFrameStops(_ chunk: Int) throws {
        let stop = try FramePrefixTestSupport.expectFirstFrameStop(try Self.animation(), chunk: chunk) { options in
            WebPPrefixScanner(planning: { _ in options })
        }
        guard let (prefix, length) = stop else { return }
        #expect(prefix.count == length)
        let riffSize = prefix.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
        #expect(riffSize == UInt32(length - 8))
        #expect(try ImageCoders.shared.properties(of: prefix).frameCount == 1)
    }

    @Test func theColourProfileBeforeTheFramesIsKept() throws {
        let data = try Self.animation(profile: ColorProfile.displayP3)
        guard case .enough(let length) = Self.verdict(data, chunk: 512, options: DecodeOptions(firstFrameOnly: true))
        else {
            Issue.record("no stop")
            return
        }
        let prefix = WebPPrefixScanner.prefix(of: data, length: length)
        #expect(try ImageCoders.shared.properties(of: prefix).colorSpace == .displayP3)
        let converted = try ImageCoders.shared.decode(prefix)
        #expect(converted.pixels.bytes == (try ImageCoders.shared.decode(data, options: DecodeOptions(firstFrameOnly: true))).pixels.bytes)
    }

    @Test func everyFrameAnotherFrameNoDecodeMetadataStillsOrAnotherFormatReadOnToTheEnd() throws {
        let data = try Self.animation()
        let first = DecodeOptions(firstFrameOnly: true)
        #expect(Self.verdict(data, chunk: 64, options: DecodeOptions()) == .never)
        #expect(Self.verdict(data, chunk: 64, options: DecodeOptions(firstFrameOnly: true, frameIndex: 2)) == .never)
        #expect(Self.verdict(data, chunk: 64, options: nil) == .never)
        // EXIF (which may turn the frame) and XMP are stored after the frames.
        let withEXIF = try Self.animation(metadata: ImageMetadata(exif: Data("Exif\0\0MM\0*\0\0\0\u{8}\0\0".utf8)))
        #expect(Self.verdict(withEXIF, chunk: 64, options: first) == .never)
        let withXMP = try Self.animation(metadata: ImageMetadata(xmp: Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)))
        #expect(Self.verdict(withXMP, chunk: 64, options: first) == .never)
        // A still WebP is one image chunk: nothing to skip.
        let still = try ImageCoders.shared.encode(try ImageCoders.shared.decode(data, options: first), as: .webp)
        #expect(Self.verdict(still, chunk: 64, options: first) == .never)
        #expect(Self.verdict(Data("not a webp file, not at all".utf8), chunk: 64, options: first) == .never)
        // Cut inside the first frame's data: still waiting for more.
        #expect(Self.verdict(data.prefix(200), chunk: 64, options: first) == .needsMore)
        // A chunk whose size runs past any real file never claims enough.
        var huge = data
        #expect(String(decoding: data[30..<34], as: UTF8.self) == "ANIM")
        huge.replaceSubrange(34..<38, with: [0xF0, 0xFF, 0xFF, 0xFF])
        #expect(Self.verdict(huge, chunk: 4096, options: first) == .needsMore)
    }
}
