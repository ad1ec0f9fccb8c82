import CoderTestSupport
import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// imgproxy's metadata rules through the proxy: stripped but for copyright by default, all kept with
/// `strip_metadata:0`, none with `keep_copyright:0`; the server's defaults; formats that hold none.
@Suite struct ProxyMetadataTests {
    /// A 40×30 JPEG stored turned (EXIF orientation 6) with every sample block.
    static func taggedPhoto() throws -> Data {
        var image = try ProxyRenderingOptionsTests.quadrants(width: 40, height: 30)
        image.metadata = MetadataSamples.all
        return try ImageCoders.shared.encode(image, as: .jpeg)
    }

    static func metadata(of response: ProxyResponse) throws -> ImageMetadata? {
        #expect(response.status == 200)
        return ImageMetadata.read(from: Data(response.body.readableBytesView))
    }

    static func withTaggedSource(configuring adjust: @escaping (inout ProxyConfiguration) -> Void = { _ in },
                                 _ body: (ProxyHarness) async throws -> Void) async throws {
        try await ProxyHarness.with(configuring: adjust) { harness in
            harness.origin.serve("tagged.jpg", data: try taggedPhoto(), contentType: "image/jpeg")
            try await body(harness)
        }
    }

    @Test func byDefaultOnlyCopyrightIsKept() async throws {
        try await Self.withTaggedSource { harness in
            let answer = await harness.get(harness.plainPath(["w:20"], "tagged.jpg"))
            let kept = try #require(try Self.metadata(of: answer))
            // EXIF: the artist and copyright in a new directory; no make, no orientation.
            let exif = try #require(kept.exif.flatMap(EXIFDirectory.init))
            #expect(exif.entries.map(\.tag) == [EXIFDirectory.artistTag, EXIFDirectory.copyrightTag])
            #expect(exif.text(of: EXIFDirectory.artistTag) == MetadataSamples.artist)
            #expect(exif.text(of: EXIFDirectory.copyrightTag) == MetadataSamples.copyright)
            // IPTC: the by-line and copyright notice, not the keywords nor the record version.
            let iptc = try #require(kept.iptc.flatMap { IPTCCopyright.resource(0x0404, in: [UInt8]($0)) })
            let text = String(decoding: iptc, as: UTF8.self)
            #expect(text.contains(MetadataSamples.artist) && text.contains(MetadataSamples.copyright))
            #expect(!text.contains("harbour"))
            #expect(Array(iptc.prefix(3)) == [0x1C, 2, 80])
            // XMP: creator and rights, not the title nor the city.
            let xmp = String(decoding: try #require(kept.xmp), as: UTF8.self)
            #expect(xmp.contains("Ada Lovelace") && xmp.contains("All rights reserved"))
            #expect(!xmp.contains("Harbour") && !xmp.contains("Lisbon"))
            // The pixels came out upright: 30 wide source turned to 30×40, scaled to width 20.
            let decoded = try ImageCoders.shared.decode(Data(answer.body.readableBytesView))
            #expect(decoded.size == PixelSize(width: 20, height: 27) && decoded.orientation == .up)
        }
    }

    @Test func stripMetadataOffKeepsEveryBlockWithTheOrientationUpright() async throws {
        try await Self.withTaggedSource { harness in
            let answer = await harness.get(harness.plainPath(["w:20", "sm:0"], "tagged.jpg"))
            let kept = try #require(try Self.metadata(of: answer))
            #expect(kept == MetadataSamples.all.withOrientationUp())
            #expect(kept.exif.map { $0.withUnsafeBytes { EXIFReader.orientation(in: $0) } } == .some(.up))
            let exif = try #require(kept.exif.flatMap(EXIFDirectory.init))
            #expect(exif.text(of: 0x010F) == MetadataSamples.make)
            let decoded = try ImageCoders.shared.decode(Data(answer.body.readableBytesView))
            #expect(decoded.size == PixelSize(width: 20, height: 27))
            // PNG and WebP hold EXIF and XMP; GIF holds none.
            for format in ["png", "webp"] {
                let other = try #require(try Self.metadata(of: await harness.get(
                    harness.plainPath(["w:20", "sm:0"], "tagged.jpg", ext: format))))
                #expect(other.exif == kept.exif && other.xmp == kept.xmp && other.iptc == nil, "\(format)")
            }
            let gif = await harness.get(harness.plainPath(["w:20", "sm:0"], "tagged.jpg", ext: "gif"))
            #expect(try Self.metadata(of: gif) == nil)
        }
    }

    @Test func withoutCopyrightNothingIsKept() async throws {
        try await Self.withTaggedSource { harness in
            #expect(try Self.metadata(of: await harness.get(harness.plainPath(["w:20", "kcr:0"], "tagged.jpg"))) == nil)
            // Keeping copyright means nothing when nothing is stripped.
            let all = try Self.metadata(of: await harness.get(harness.plainPath(["w:20", "sm:0", "kcr:0"], "tagged.jpg")))
            #expect(all == MetadataSamples.all.withOrientationUp())
            // Three answers from one source: the cache tells them apart.
            #expect(harness.origin.log.count("/files/tagged.jpg") >= 1)
        }
    }

    @Test func theServersDefaultsApplyWhereTheURLIsSilent() async throws {
        try await Self.withTaggedSource(configuring: { $0.stripsMetadata = false }) { harness in
            let kept = try Self.metadata(of: await harness.get(harness.plainPath(["w:20"], "tagged.jpg")))
            #expect(kept == MetadataSamples.all.withOrientationUp())
            #expect(try Self.metadata(of: await harness.get(harness.plainPath(["w:20", "sm:1", "kcr:0"], "tagged.jpg")))
                    == nil)
        }
        try await Self.withTaggedSource(configuring: { $0.keepsCopyright = false }) { harness in
            #expect(try Self.metadata(of: await harness.get(harness.plainPath(["w:20"], "tagged.jpg"))) == nil)
            let kept = try Self.metadata(of: await harness.get(harness.plainPath(["w:20", "kcr:1"], "tagged.jpg")))
            #expect(kept?.exif.flatMap(EXIFDirectory.init)?.text(of: EXIFDirectory.copyrightTag)
                    == MetadataSamples.copyright)
        }
    }

    @Test func aSourceWithoutMetadataGetsNone() async throws {
        try await ProxyHarness.with { harness throws in
            #expect(try Self.metadata(of: await harness.get(harness.plainPath(["w:20", "sm:0"], "photo.jpg"))) == nil)
            #expect(try Self.metadata(of: await harness.get(harness.plainPath(["w:20"], "photo.jpg"))) == nil)
        }
    }

    @Test func damagedBlocksAreDroppedNeverFatal() {
        var random = SplitMix(seed: 11)
        func damaged(_ block: Data, _ changes: Int) -> Data {
            var bytes = [UInt8](block)
            for _ in 0..<changes { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            return Data(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
        }
        for round in 0..<3_000 {
            if let iptc = IPTCCopyright.kept(damaged(MetadataSamples.iptc, 3)) {
                #expect(iptc.prefix(4) == Data("8BIM".utf8))
            }
            _ = MetadataStripping.copyrightEXIF(damaged(MetadataSamples.exif(), 3))
            if round % 10 == 0 { _ = XMPCopyright.kept(damaged(MetadataSamples.xmp, 2)) }
        }
        #expect(XMPCopyright.kept(Data("<not xml".utf8)) == nil)
    }
}
