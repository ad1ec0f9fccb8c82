import Foundation
import Testing
import WebImage
@testable import WebImageHEIF

/// Pixels against heif-convert's decodes, alpha, transformations and formats.
@Suite struct HEIFDecodingTests {
    let coder = HEIFCoder()

    @Test func decodesThePrimaryImageLikeHeifConvert() throws {
        let image = try coder.decode(HEIFFixtures.data("photo.heic"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(image.format == .heic)
        #expect(!image.hasAlpha)
        #expect(image.frames.count == 1)
        #expect(image.orientation == .up)
        // Same library underneath: all but identical to libheif's own tool.
        #expect(HEIFFixtures.psnr(image.pixels, try HEIFFixtures.reference("photo.png")) > 45)
        // And near the lossy encoder's input.
        #expect(HEIFFixtures.psnr(image.pixels, try HEIFFixtures.reference("photo-src.png")) > 28)
        #expect(image.pixels.bytes.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    }

    /// A 10-bit image (heif-enc -b 10 from a 16-bit PNG) comes out as 8-bit RGBA.
    @Test func decodesTenBitImagesToEightBits() throws {
        let image = try coder.decode(HEIFFixtures.data("deep.heic"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(HEIFFixtures.psnr(image.pixels, try HEIFFixtures.reference("deep.png")) > 40)
    }

    @Test func decodesAlpha() throws {
        let image = try coder.decode(HEIFFixtures.data("alpha.heic"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 48, height: 40))
        #expect(image.hasAlpha)
        let reference = try HEIFFixtures.reference("alpha.png")
        #expect(HEIFFixtures.psnr(image.pixels, reference, channels: [3]) > 45)
        #expect(HEIFFixtures.psnr(image.pixels, reference) > 40)
        // The source has an opaque left half and an alpha ramp on the right.
        #expect(image.pixels[2, 20].a == 255)
        #expect(image.pixels[40, 1].a < 40)
    }

    /// An alpha plane flagged premultiplied (heif-enc --premultiplied-alpha): heif-convert hands back the stored,
    /// premultiplied colour; the coder makes it straight.
    @Test func makesPremultipliedAlphaStraight() throws {
        let image = try coder.decode(HEIFFixtures.data("premultiplied.heic"), options: DecodeOptions())
        #expect(image.hasAlpha)
        let ours = image.pixels.bytes
        let stored = try HEIFFixtures.reference("premultiplied.png").bytes  // premultiplied, as heif-convert writes
        var premultiplied = ours
        for index in stride(from: 0, to: ours.count, by: 4) {
            let alpha = Int(ours[index + 3])
            for channel in 0..<3 { premultiplied[index + channel] = UInt8((Int(ours[index + channel]) * alpha + 127) / 255) }
        }
        let again = try PixelBuffer(width: image.size.width, height: image.size.height, rgba: premultiplied)
        let reference = try PixelBuffer(width: image.size.width, height: image.size.height, rgba: stored)
        #expect(HEIFFixtures.psnr(again, reference) > 40)
        // At alpha ≈ 130 the straight colour is about twice the stored one (source: (217, 130, 28, 130)).
        let pixel = image.pixels[40, 20]
        #expect(abs(Int(pixel.r) - 217) <= 8 && abs(Int(pixel.g) - 130) <= 8 && abs(Int(pixel.a) - 130) <= 4)
    }

    /// heif-enc cannot write `irot`; scripts/add-properties.py adds a 90° one to photo.heic. libheif turns the pixels.
    @Test func appliesTheIrotTransformation() throws {
        let data = try HEIFFixtures.data("rotated.heic")
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.size == PixelSize(width: 48, height: 64))
        #expect(image.orientation == .up)
        #expect(HEIFFixtures.psnr(image.pixels, try HEIFFixtures.reference("rotated.png")) > 45)
        // Turning the unrotated decode by 90° counter-clockwise gives the same pixels.
        let upright = try coder.decode(HEIFFixtures.data("photo.heic"), options: DecodeOptions())
        let turnedMatches = try upright.pixels.applying(.left).bytes == image.pixels.bytes
        #expect(turnedMatches)
        // applyOrientation has nothing to undo: the transformation is part of the image.
        let raw = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(raw.size == image.size)
    }

    @Test func readsTheStillImageOfASequenceFile() throws {
        let image = try coder.decode(HEIFFixtures.data("sequence-with-primary.heics"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 64, height: 48))
        #expect(image.frames.count == 1)
    }

    /// libheif 1.15 reads no `moov` tracks: a sequence with no still item is a valid file it cannot read.
    @Test func refusesASequenceWithoutAStillImage() throws {
        let data = try HEIFFixtures.data("sequence-only.heics")
        #expect(coder.canDecode(data))
        for attempt in [{ _ = try coder.decode(data, options: DecodeOptions()) }, { _ = try coder.properties(of: data) }] {
            let error = #expect(throws: ImageError.self) { try attempt() }
            #expect(error?.code == .unsupportedFormat)
        }
    }

    @Test func claimsBothHEICAndHEIF() throws {
        #expect(coder.decodableFormats == [.heic, .heif])
        #expect(coder.canDecode(try HEIFFixtures.data("photo.heic")))
        #expect(!coder.canDecode(Data("GIF89a....".utf8)))
        // A file whose only brands are mif1/msf1 is `.heif`, and is reported as such.
        var bytes = [UInt8](try HEIFFixtures.data("photo.heic"))
        let brands = (8..<Int(bytes[3])).filter { $0 % 4 == 0 && $0 != 12 }  // major and compatible brands
        for offset in brands { bytes.replaceSubrange(offset..<offset + 4, with: Array("mif1".utf8)) }
        let heif = Data(bytes)
        #expect(ImageFormat.detect(heif) == .heif)
        #expect(try coder.decode(heif, options: DecodeOptions()).format == .heif)
        #expect(try coder.properties(of: heif).format == .heif)
    }

    /// A HEVC-coded file whose major brand is the generic `mif1` or `msf1` (its compatible brands still list
    /// `heic`) is HEIF, as SDWebImage reports it, and decodes to the same pixels as under its `heic` brand.
    @Test(arguments: ["mif1", "msf1"])
    func genericMajorBrandIsHEIF(brand: String) throws {
        let heic = try HEIFFixtures.data("photo.heic")
        var bytes = [UInt8](heic)
        #expect(bytes[8..<12].elementsEqual("heic".utf8))
        bytes.replaceSubrange(8..<12, with: Array(brand.utf8))  // the ftyp box's major brand
        let heif = Data(bytes)
        #expect(ImageFormat.detect(heif) == .heif)
        #expect(coder.canDecode(heif))
        let image = try coder.decode(heif, options: DecodeOptions())
        #expect(image.format == .heif)
        #expect(image.pixels.bytes == (try coder.decode(heic, options: DecodeOptions())).pixels.bytes)
        #expect(try coder.properties(of: heif).format == .heif)
        let coders = ImageCoders(coders: ImageCoders.builtIn + [coder])
        #expect(try coders.decode(heif).format == .heif)
        #expect(try coders.properties(of: heif).format == .heif)
    }

    /// HEIC is written (x265 through libheif), and read back at its size with colours near the source's; HEIF of
    /// another codec is not.
    @Test func encodesHEICThatReadsBack() throws {
        let image = try coder.decode(HEIFFixtures.data("photo.heic"), options: DecodeOptions())
        #expect(coder.canEncode(to: .heic) && !coder.canEncode(to: .heif))
        let encoded = try coder.encode(image, as: .heic, options: EncodeOptions(quality: 0.9))
        #expect(HEIFCoder.format(of: encoded) == .heic)
        let again = try coder.decode(encoded, options: DecodeOptions())
        #expect(again.size == image.size)
        let (before, after) = (image.pixels.bytes, again.pixels.bytes)
        let error = zip(before, after).map { abs(Int($0) - Int($1)) }.reduce(0, +) / max(1, before.count)
        #expect(error < 8, "mean error \(error)")
        let refused = #expect(throws: ImageError.self) { try coder.encode(image, as: .heif, options: EncodeOptions()) }
        #expect(refused?.code == .unsupportedFormat)
    }

    @Test func refusesFramesPastTheFirst() throws {
        let data = try HEIFFixtures.data("photo.heic")
        #expect(try coder.decode(data, options: DecodeOptions(frameIndex: 0)).size.width == 64)
        let error = #expect(throws: ImageError.self) { try coder.decode(data, options: DecodeOptions(frameIndex: 1)) }
        #expect(error?.code == .invalidParameter)
    }
}
