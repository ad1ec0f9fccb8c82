import CoderTestSupport
import Foundation
import Testing
@testable import WebImage
@testable import WebImageAVIF

/// EXIF, XMP and IPTC are read from every container that holds them, kept through transforms, written back by
/// the encoders, and never in the way of a decode.
@Suite struct ImageMetadataTests {
    static func picture() throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<24 { for x in 0..<32 { pixels += [UInt8(x * 8), UInt8(y * 10), 90, 255] } }
        return Image(pixels: try PixelBuffer(width: 32, height: 24, rgba: pixels), hasAlpha: false)
    }

    static func written(_ format: ImageFormat, metadata: ImageMetadata) throws -> Data {
        var image = try picture()
        image.metadata = metadata
        if format == .avif { return try AVIFCoder(speed: 10).encode(image, as: .avif, options: EncodeOptions()) }
        return try ImageCoders.shared.encode(image, as: format, options: EncodeOptions())
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .avif])
    func encodersWriteTheBlocksTheirFormatHolds(_ format: ImageFormat) throws {
        let data = try Self.written(format, metadata: MetadataSamples.all)
        let read = try #require(ImageMetadata.read(from: data))
        #expect(read.exif == MetadataSamples.all.exif)
        #expect(read.xmp == MetadataSamples.xmp)
        // IPTC has a place in JPEG only.
        #expect(read.iptc == (format == .jpeg ? MetadataSamples.iptc : nil))
        // The file still decodes, and its orientation is the EXIF's (6: turned a quarter).
        let coders = ImageCoders(coders: ImageCoders.shared.coders + [AVIFCoder()])
        let decoded = try coders.decode(data, options: DecodeOptions(readsMetadata: true))
        #expect(decoded.orientation == .right)
        #expect(decoded.size == PixelSize(width: 24, height: 32))
        // The pixels are upright now, so the metadata that comes with them says so.
        let orientation = decoded.metadata?.exif.map { $0.withUnsafeBytes { EXIFReader.orientation(in: $0) } }
        #expect(orientation == .some(.up))
    }

    @Test func withoutTheOptionNothingIsReadAndWithoutMetadataNothingIsWritten() throws {
        let tagged = try Self.written(.jpeg, metadata: MetadataSamples.all)
        #expect(try ImageCoders.shared.decode(tagged).metadata == nil)
        let plain = try Self.written(.jpeg, metadata: ImageMetadata())
        #expect(ImageMetadata.read(from: plain) == nil)
        #expect(try ImageCoders.shared.decode(plain, options: DecodeOptions(readsMetadata: true)).metadata == nil)
        // Turning off orientation keeps the tag as the pixels are still stored turned.
        var options = DecodeOptions(readsMetadata: true)
        options.applyOrientation = false
        let stored = try ImageCoders.shared.decode(tagged, options: options)
        #expect(stored.metadata?.exif == MetadataSamples.all.exif)
    }

    @Test func transformsKeepTheMetadata() throws {
        var image = try Self.picture()
        image.metadata = MetadataSamples.all
        let resized = try ImageTransformers.Resize(to: PixelSize(width: 8, height: 6), fit: .fill).transform(image)
        #expect(resized.metadata == MetadataSamples.all)
    }

    @Test func pngChunksPassTheirChecksumsAndSitBeforeTheImageData() throws {
        let png = try Self.written(.png, metadata: MetadataSamples.all)
        try png.withUnsafeBytes { bytes in
            var reader = try PNGChunkReader(bytes)
            var order: [String] = []
            while !reader.isAtEnd { order.append(try reader.next(verifyingChecksum: true).type.description) }
            let idat = try #require(order.firstIndex(of: "IDAT"))
            #expect(order.firstIndex(of: "eXIf").map { $0 < idat } == true)
            #expect(order.firstIndex(of: "iTXt").map { $0 < idat } == true)
        }
    }

    @Test func compressedXMPInPNGIsInflated() throws {
        let png = try Self.written(.png, metadata: ImageMetadata())
        let chunk = Array("XML:com.adobe.xmp".utf8) + [0, 1, 0, 0, 0] + ColorTaggedFiles.storedZlib(Array(MetadataSamples.xmp))
        let tagged = ColorTaggedFiles.png(png, chunks: [("iTXt", chunk)])
        #expect(ImageMetadata.read(from: tagged)?.xmp == MetadataSamples.xmp)
    }

    @Test func exifTooLargeForASegmentIsLeftOutNotAnError() throws {
        let huge = ImageMetadata(exif: MetadataSamples.exif() + Data(count: 70_000), xmp: MetadataSamples.xmp)
        let jpeg = try Self.written(.jpeg, metadata: huge)
        let read = try #require(ImageMetadata.read(from: jpeg))
        #expect(read.exif == nil)
        #expect(read.xmp == MetadataSamples.xmp)
    }

    @Test func damagedBlocksAndContainersReadAsNothing() throws {
        // Directory offsets and counts that point anywhere: no orientation to set, no text, no crash.
        var random = SplitMix(seed: 7)
        for _ in 0..<2_000 {
            var block = [UInt8](MetadataSamples.exif())
            for _ in 0..<4 { block[Int(random.next() % UInt64(block.count))] = UInt8(truncatingIfNeeded: random.next()) }
            let metadata = ImageMetadata(exif: Data(block)).withOrientationUp()
            _ = EXIFDirectory(metadata.exif ?? Data())?.text(of: EXIFDirectory.copyrightTag)
        }
        // Every cut of a tagged AVIF (its item table and locations) reads as some or none of the blocks.
        let avif = try Self.written(.avif, metadata: MetadataSamples.all)
        for length in stride(from: 0, to: avif.count, by: 7) {
            if let read = ImageMetadata.read(from: avif.prefix(length)) {
                #expect(read.exif == nil || read.exif == MetadataSamples.all.exif)
            }
        }
        #expect(ImageMetadata.read(from: Data("not an image".utf8)) == nil)
    }
}
