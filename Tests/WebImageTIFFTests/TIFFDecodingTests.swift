import Foundation
import Testing
import WebImage
import WebImageTIFF

/// Every photometric against Pillow's decode of the same file.
@Suite struct TIFFDecodingTests {
    let coder = TIFFCoder()

    /// Lossless files whose colour conversion is exact arithmetic in both libraries.
    @Test(arguments: ["rgb.tif", "rgb-lzw.tif", "rgb-msb.tif", "rgb-tiled-deflate.tif", "rgb16.tif", "gray8.tif", "gray16.tif",
                      "palette.tif", "miniswhite.tif", "orient5.tif", "orient6.tif", "gray-alpha.tif"])
    func decodesExactly(name: String) throws {
        let image = try coder.decode(TIFFFixtures.data(name), options: DecodeOptions())
        let reference = try TIFFFixtures.reference(name)
        #expect(image.pixels.bytes.count == reference.count)
        // 16 → 8 bits: libtiff takes the high byte, the reference rounds (v + 128) / 257; they differ by one at most.
        let tolerance = name == "gray16.tif" ? 1 : 0
        let difference = TIFFFixtures.maxColourDifference(image.pixels.bytes, reference)
        #expect(difference <= tolerance, "\(name)")
        #expect(image.format == .tiff)
    }

    /// libtiff's and Pillow's CMYK → RGB formulas round differently by at most one.
    @Test func decodesCMYK() throws {
        let image = try coder.decode(TIFFFixtures.data("cmyk.tif"), options: DecodeOptions())
        #expect(!image.hasAlpha)
        #expect(TIFFFixtures.maxColourDifference(image.pixels.bytes, try TIFFFixtures.reference("cmyk.tif")) <= 1)
    }

    /// 16-bit CMYK (ImageMagick's `-colorspace CMYK`), which libtiff's RGBA reader refuses: read by the package
    /// itself from strips and from tiles, the ink computed at 16 bits, within one step of Pillow's 8-bit result.
    @Test(arguments: ["cmyk16.tif", "cmyk16-tiled.tif"])
    func decodesSixteenBitCMYK(name: String) throws {
        let data = try TIFFFixtures.data(name)
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.size == PixelSize(width: 32, height: 24) && !image.hasAlpha)
        #expect(TIFFFixtures.maxColourDifference(image.pixels.bytes, try TIFFFixtures.reference(name)) <= 1)
        let properties = try coder.properties(of: data)
        #expect(properties.size == PixelSize(width: 32, height: 24) && properties.frameCount == 1 && !properties.hasAlpha)
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(thumbnail.size == PixelSize(width: 16, height: 12) && thumbnail.flags.contains(.thumbnail))
    }

    /// 16-bit CMYK pixel data that does not decompress is damage, reported, not a picture with a grey patch.
    /// (These files keep their directory at the end, so the directory survives while the strips are overwritten.)
    @Test(arguments: ["cmyk16.tif", "cmyk16-tiled.tif"])
    func refusesDamagedSixteenBitCMYK(name: String) throws {
        var data = try TIFFFixtures.data(name)
        for offset in 8..<(data.count / 2) { data[offset] = UInt8(truncatingIfNeeded: offset &* 37) }
        #expect(try coder.properties(of: data).size == PixelSize(width: 32, height: 24))
        let error = #expect(throws: ImageError.self) { try coder.decode(data, options: DecodeOptions()) }
        #expect(error?.code == .badImageData, "\(String(describing: error))")
    }

    /// JPEG-compressed pages (RGB and YCbCr): the same libjpeg underneath, colour conversion may differ slightly.
    @Test(arguments: ["jpeg.tif", "ycbcr-jpeg.tif"])
    func decodesJPEGCompression(name: String) throws {
        let image = try coder.decode(TIFFFixtures.data(name), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 32, height: 24))
        #expect(TIFFFixtures.psnr(image.pixels.bytes, try TIFFFixtures.reference(name)) > 38)
    }

    /// Straight alpha out of both kinds: exact where opaque; under partial alpha libtiff's premultiplied raster
    /// costs at most half a step of 255 / alpha.
    @Test(arguments: ["alpha-associated.tif", "alpha-unassociated.tif"])
    func decodesAlphaStraight(name: String) throws {
        let image = try coder.decode(TIFFFixtures.data(name), options: DecodeOptions())
        #expect(image.hasAlpha)
        #expect(TIFFFixtures.alphaMismatch(image.pixels.bytes, try TIFFFixtures.reference(name)) == nil)
    }

    @Test func opaqueFilesHaveNoAlpha() throws {
        for name in ["rgb.tif", "gray16.tif", "palette.tif", "ycbcr-jpeg.tif"] {
            #expect(!(try coder.decode(TIFFFixtures.data(name), options: DecodeOptions()).hasAlpha), "\(name)")
        }
    }

    /// Tag 274 = 6 (RightTop) on 32×24 stored pixels: upright 24×32, the tag reported, raw pixels on request.
    @Test func appliesTheOrientationTag() throws {
        let data = try TIFFFixtures.data("orient6.tif")
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.size == PixelSize(width: 24, height: 32))
        let raw = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(raw.orientation == .right)
        #expect(raw.size == PixelSize(width: 32, height: 24))
        let rawMatches = raw.pixels.bytes == (try TIFFFixtures.reference("rgb.tif"))
        #expect(rawMatches)
        #expect(try coder.decode(TIFFFixtures.data("orient5.tif"), options: DecodeOptions()).orientation == .leftMirrored)
    }

    @Test func decodesEachPageOfAMultiPageFile() throws {
        let data = try TIFFFixtures.data("multipage.tif")
        let sizes = [PixelSize(width: 32, height: 24), PixelSize(width: 32, height: 24), PixelSize(width: 20, height: 16)]
        for page in 0..<3 {
            let image = try coder.decode(data, options: DecodeOptions(frameIndex: page))
            #expect(image.size == sizes[page])
            #expect(image.frames.count == 1)
            // Page 1 has alpha (unassociated, as ImageMagick writes it).
            #expect(TIFFFixtures.alphaMismatch(image.pixels.bytes, try TIFFFixtures.reference("multipage.tif", page: page)) == nil)
        }
        let firstPageMatches = try coder.decode(data, options: DecodeOptions()).pixels.bytes == (try TIFFFixtures.reference("multipage.tif"))
        #expect(firstPageMatches)
        for page in [3, -1] {
            let error = #expect(throws: ImageError.self) { try coder.decode(data, options: DecodeOptions(frameIndex: page)) }
            #expect(error?.code == .invalidParameter)
        }
    }

    @Test func thumbnailsAreAreaAveragedAfterOrientation() throws {
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let image = try coder.decode(TIFFFixtures.data("rgb.tif"), options: box)
        #expect(image.size == PixelSize(width: 16, height: 12))
        #expect(image.flags.contains(.thumbnail))
        let reference = try PixelBuffer(width: 32, height: 24, rgba: TIFFFixtures.reference("rgb.tif"))
        let matches = image.pixels.bytes == (try reference.resized(to: image.size, filter: .area)).bytes
        #expect(matches)
        let turned = try coder.decode(TIFFFixtures.data("orient6.tif"), options: box)
        #expect(turned.size == PixelSize(width: 12, height: 16))
    }

    /// 32-bit floating-point RGB (ImageMagick's HDR output) is a valid TIFF libtiff's RGBA reader does not convert.
    @Test func refusesWhatLibtiffCannotConvertAsUnsupported() throws {
        let data = try TIFFFixtures.data("float32.tif")
        #expect(coder.canDecode(data))
        for attempt in [{ _ = try coder.decode(data, options: DecodeOptions()) }, { _ = try coder.properties(of: data) }] {
            let error = #expect(throws: ImageError.self) { try attempt() }
            #expect(error?.code == .unsupportedFormat, "\(String(describing: error))")
        }
    }

    /// TIFF is written losslessly (RGB, or RGBA with straight alpha) and reads back pixel for pixel.
    @Test func encodesTIFFThatReadsBackExactly() throws {
        let image = try coder.decode(TIFFFixtures.data("rgb.tif"), options: DecodeOptions())
        #expect(coder.decodableFormats == [.tiff] && coder.canEncode(to: .tiff) && !coder.canEncode(to: .png))
        let again = try coder.decode(try coder.encode(image, as: .tiff, options: EncodeOptions()), options: DecodeOptions())
        #expect(again.size == image.size && again.pixels.bytes == image.pixels.bytes)
        let clear = Image(pixels: try PixelBuffer(width: 5, height: 3, filledWith: RGBA(200, 100, 50, 128)))
        let clearAgain = try coder.decode(try coder.encode(clear, as: .tiff, options: EncodeOptions()),
                                          options: DecodeOptions())
        // libtiff's reader premultiplies unassociated alpha and the decoder undoes it: a unit of rounding at most.
        #expect(clearAgain.hasAlpha && clearAgain.size == clear.size)
        #expect(zip(clearAgain.pixels.bytes, clear.pixels.bytes).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        let error = #expect(throws: ImageError.self) { try coder.encode(image, as: .png, options: EncodeOptions()) }
        #expect(error?.code == .unsupportedFormat)
    }
}
