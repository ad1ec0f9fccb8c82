import Foundation
import Testing
@testable import WebImage

@Suite struct ImageFormatTests {
    private func detect(_ bytes: [UInt8]) -> ImageFormat { ImageFormat.detect(Data(bytes)) }
    private func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let brands = compatible.flatMap { Array($0.utf8) }
        let size = 16 + brands.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0] + brands
    }

    @Test func recognisesEveryFormatByMagicBytes() {
        #expect(detect([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]) == .jpeg)
        #expect(detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(detect(Array("GIF89a".utf8) + [1, 0]) == .gif)
        #expect(detect(Array("GIF87a".utf8)) == .gif)
        #expect(detect(Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WEBPVP8 ".utf8)) == .webp)
        #expect(detect(ftyp("heic")) == .heic)
        #expect(detect(ftyp("mif1", ["heic"])) == .heif)
        #expect(detect(ftyp("mif1", ["miaf"])) == .heif)
        #expect(detect(ftyp("avif", ["mif1"])) == .avif)
        #expect(detect(ftyp("mif1", ["avif"])) == .avif)
        #expect(detect([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]) == .tiff)
        #expect(detect([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]) == .tiff)
        #expect(detect(Array("BM".utf8) + [UInt8](repeating: 0, count: 40)) == .bmp)
        #expect(detect([0, 0, 1, 0, 1, 0, 16, 16]) == .ico)
        #expect(detect(Array("%PDF-1.7\n".utf8)) == .pdf)
        #expect(detect(Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == .svg)
        #expect(detect(Array(String(repeating: " ", count: 2000).utf8) + Array("</svg>\n".utf8)) == .svg)
    }

    /// SDWebImage's rule: the generic major brands are HEIF, the HEVC ones HEIC; AV1 brands stay AVIF.
    @Test func heifBrandsFollowTheMajorBrand() {
        for major in ["heic", "heix", "hevc", "hevx"] {
            #expect(detect(ftyp(major, ["mif1", "heic", "miaf"])) == .heic, "\(major)")
        }
        for major in ["mif1", "msf1"] {
            #expect(detect(ftyp(major)) == .heif, "\(major)")
            #expect(detect(ftyp(major, ["heic", "miaf"])) == .heif, "\(major)")
            #expect(detect(ftyp(major, ["msf1", "hevc"])) == .heif, "\(major)")
            #expect(detect(ftyp(major, ["miaf", "avif"])) == .avif, "\(major)")
            #expect(detect(ftyp(major, ["avis"])) == .avif, "\(major)")
        }
        #expect(detect(ftyp("avif", ["mif1", "miaf"])) == .avif)
        #expect(detect(ftyp("avis", ["msf1", "avif"])) == .avif)
        // Another major brand: the compatible brands decide, as before.
        #expect(detect(ftyp("iso8", ["mif1", "heic"])) == .heic)
        #expect(detect(ftyp("iso8", ["mif1"])) == .heif)
    }

    @Test func refusesLookalikes() {
        #expect(detect([]) == .unknown)
        #expect(detect([0xFF, 0xD8]) == .unknown)
        #expect(detect(Array("RIFF".utf8) + [1, 2, 3, 4] + Array("WAVE".utf8)) == .unknown)
        #expect(detect(Array("hello, world".utf8)) == .unknown)
        #expect(detect([UInt8](repeating: 0, count: 64)) == .unknown)
        #expect(detect(ftyp("isom", ["mp41"])) == .unknown)
    }

    @Test func worksOnDataSlices() {
        let padded = Data([0, 0] + [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(ImageFormat.detect(padded.dropFirst(2)) == .png)
    }

    @Test func namesAndExtensions() {
        #expect(ImageFormat(fileExtension: "JPG") == .jpeg)
        #expect(ImageFormat(fileExtension: "jpeg") == .jpeg)
        #expect(ImageFormat(fileExtension: "webp") == .webp)
        #expect(ImageFormat(fileExtension: "txt") == nil)
        #expect(ImageFormat(fileExtension: "unknown") == nil)
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
        #expect(ImageFormat.webp.mimeType == "image/webp")
    }
}

@Suite struct SVGDetectionTests {
    @Test func findsTheTagInAnyCaseButNotLookalikes() {
        #expect(ImageFormat.detect(Data("  <!-- x --><SVG width='1'/>".utf8)) == .svg)
        #expect(ImageFormat.detect(Data("<svx></svx>".utf8)) == .unknown)
        #expect(ImageFormat.detect(Data([0x3C, 0x13, 0x16, 0x07])) == .unknown)  // "<" then control bytes
        var noise = [UInt8](repeating: 0, count: 4096)
        for index in noise.indices { noise[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 7) }
        #expect(ImageFormat.detect(Data(noise)) == .unknown)
    }
}
