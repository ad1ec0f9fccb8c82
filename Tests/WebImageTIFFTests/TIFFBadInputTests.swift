import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageTIFF

/// Properties against full decodes, limits from the header, truncated, corrupt and looping files.
@Suite struct TIFFBadInputTests {
    let coder = TIFFCoder()

    /// Everything a default decode reports; the page count is the frame count of the properties (the decoded
    /// image holds the one page asked for).
    @Test(arguments: TIFFFixtures.all)
    func propertiesAgreeWithADefaultDecode(name: String) throws {
        let data = try TIFFFixtures.data(name)
        let properties = try coder.properties(of: data)
        let image = try coder.decode(data, options: DecodeOptions())
        var expected = ImageProperties(of: image)
        expected.frameCount = name == "multipage.tif" ? 3 : 1
        #expect(properties == expected)
    }

    @Test func limitsAreCheckedFromTheTags() throws {
        let data = try TIFFFixtures.data("rgb.tif")
        let error = #expect(throws: ImageError.self) {
            try coder.decode(data, options: DecodeOptions(limits: DecodeLimits(maxPixels: 32 * 24 - 1)))
        }
        #expect(error?.code == .imageTooLarge)
    }

    /// 100 000² declared over a few bytes of strips: refused before the 40 GB raster is asked for.
    @Test func aHeaderDeclaringAHugeImageIsRefused() throws {
        let bomb = TIFFFixtures.withDeclaredSize(try TIFFFixtures.data("rgb-lzw.tif"), 100_000)
        let error = #expect(throws: ImageError.self) { try coder.decode(bomb, options: DecodeOptions()) }
        #expect(error?.code == .imageTooLarge || error?.code == .badImageData)
        if let properties = try? coder.properties(of: bomb) {
            #expect(properties.size == PixelSize(width: 100_000, height: 100_000))
        }
    }

    /// libtiff 4.5 stops counting where the chain of directories comes back on itself: no hang, one page.
    @Test func aDirectoryChainThatLoopsEnds() throws {
        let looping = TIFFFixtures.withDirectoryLoop(try TIFFFixtures.data("rgb.tif"))
        #expect(try coder.properties(of: looping).frameCount == 1)
        #expect(try coder.decode(looping, options: DecodeOptions()).size == PixelSize(width: 32, height: 24))
        let error = #expect(throws: ImageError.self) { try coder.decode(looping, options: DecodeOptions(frameIndex: 1)) }
        #expect(error?.code == .invalidParameter)
    }

    @Test(arguments: ["rgb.tif", "rgb-lzw.tif", "rgb-tiled-deflate.tif", "jpeg.tif", "alpha-unassociated.tif"])
    func truncationsThrowTypedErrors(name: String) throws {
        let data = try TIFFFixtures.data(name)
        for length in [0, 3, 8, 12, data.count / 4, data.count / 2, data.count - 20, data.count - 1] {
            let error = #expect(throws: ImageError.self, "\(name) cut to \(length) bytes") {
                try coder.decode(data.prefix(length), options: DecodeOptions())
            }
            #expect(error?.code == .badImageData, "\(name) cut to \(length): \(String(describing: error))")
        }
    }

    /// Every prefix of a small file: each one refused as bad data, none decoded into a wrong image.
    @Test(arguments: ["rgb-lzw.tif", "palette.tif"])
    func everyPrefixIsRefused(name: String) throws {
        let data = try TIFFFixtures.data(name)
        var failures: [String] = []
        for length in 0..<data.count {
            do {
                _ = try coder.decode(data.prefix(length), options: DecodeOptions())
                failures.append("\(length): decoded")
            } catch let error as ImageError {
                if error.code != .badImageData { failures.append("\(length): \(error)") }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// A multi-page file cut short: a cut anywhere in the chain of directories is noticed while counting pages;
    /// a cut in the last page's tag values is noticed when that page is read (page 0 alone is still whole).
    @Test func truncatedMultiPageFiles() throws {
        let data = try TIFFFixtures.data("multipage.tif")
        for length in [12, data.count / 4, data.count / 2] {
            let error = #expect(throws: ImageError.self) { try coder.properties(of: data.prefix(length)) }
            #expect(error?.code == .badImageData, "cut to \(length)")
        }
        for length in [data.count - 20, data.count - 1] {
            let error = #expect(throws: ImageError.self) {
                try coder.decode(data.prefix(length), options: DecodeOptions(frameIndex: 2))
            }
            #expect(error?.code == .badImageData, "cut to \(length)")
        }
    }

    /// Bytes changed at pseudo-random places: a typed error or an image, never a crash or a hang.
    @Test(arguments: ["rgb-lzw.tif", "rgb-tiled-deflate.tif", "palette.tif", "ycbcr-jpeg.tif", "multipage.tif"])
    func corruptCopiesDoNotCrash(name: String) throws {
        let data = try TIFFFixtures.data(name)
        var generator = SplitMix(seed: 0x5449_4646)
        for _ in 0..<80 {
            var bytes = [UInt8](data)
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            let options = DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20))
            do {
                let image = try coder.decode(Data(bytes), options: options)
                #expect(image.size.area <= 1 << 20)
                _ = try? coder.properties(of: Data(bytes))
            } catch let error as ImageError {
                #expect([.badImageData, .unsupportedFormat, .imageTooLarge].contains(error.code), "\(error)")
            }
        }
    }
}
