import Foundation
import Testing
@testable import WebImage

/// A plugin coder for a made-up format: data starting with "TEST" decodes to a 1×1 pixel of the next 4 bytes.
private struct TestCoder: ImageCoder {
    let tag: UInt8
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("TEST".utf8)) }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        Image(pixels: try PixelBuffer(width: 1, height: 1, rgba: [tag, 0, 0, 255]))
    }
    func canEncode(to format: ImageFormat) -> Bool { format == .unknown }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data { Data("TEST".utf8) }
}

@Suite struct ImageCodersTests {
    @Test func lastAddedCoderIsAskedFirst() throws {
        let coders = ImageCoders(coders: [TestCoder(tag: 1)])
        #expect(try coders.decode(Data("TEST".utf8)).pixels[0, 0].r == 1)
        coders.add(TestCoder(tag: 2))
        #expect(try coders.decode(Data("TEST".utf8)).pixels[0, 0].r == 2)
        #expect(try coders.encode(Image(pixels: try PixelBuffer(width: 1, height: 1)), as: .unknown) == Data("TEST".utf8))
        coders.remove(TestCoder(tag: 0))
        #expect(coders.coders.isEmpty)
    }

    @Test func emptyGarbageAndUnsupportedFormatsHaveTypedErrors() {
        let coders = ImageCoders.shared
        #expect { try coders.decode(Data()) } throws: { ($0 as? ImageError)?.code == .badImageData }
        #expect { try coders.decode(Data("just some text\n".utf8)) } throws: { ($0 as? ImageError)?.code == .badImageData }
        #expect { try coders.decode(Data(count: 4096)) } throws: { ($0 as? ImageError)?.code == .badImageData }
        #expect { try coders.decode(Data(Array("%PDF-1.4\n".utf8))) } throws: {
            ($0 as? ImageError)?.code == .unsupportedFormat
        }
        #expect { try coders.encode(Image(pixels: try PixelBuffer(width: 1, height: 1)), as: .heic) } throws: {
            ($0 as? ImageError)?.code == .unsupportedFormat
        }
    }

    @Test func acceptFollowsTheRegisteredCoders() {
        let coders = ImageCoders(coders: [JPEGCoder(), GIFCoder()])
        #expect(coders.acceptHeader == "image/jpeg,image/gif,*/*;q=0.8")
        coders.add(WebPCoder())
        #expect(coders.acceptHeader == "image/webp,image/jpeg,image/gif,*/*;q=0.8")
        #expect(coders.decodableFormats == [.jpeg, .gif, .webp])
        #expect(ImageCoders().acceptHeader == "*/*;q=0.8")
    }

    @Test func jpegXLIsDetectedInBothForms() {
        #expect(ImageFormat.detect(Data([0xFF, 0x0A, 0xFA, 0x1F])) == .jxl)
        let container: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14]
        #expect(ImageFormat.detect(Data(container)) == .jxl)
        #expect(ImageFormat(fileExtension: "jxl") == .jxl)
        #expect(ImageFormat.jxl.mimeType == "image/jxl")
        #expect(ImageFormat.detect(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
    }

    @Test func errorCodesKeepSDWebImageNumbers() {
        #expect(ImageError.Code.invalidURL.legacyCode == 1000)
        #expect(ImageError.Code.cancelled.legacyCode == 2002)
        #expect(ImageError.Code.invalidDownloadContentType.legacyCode == 2004)
        #expect(ImageError.Code.imageTooLarge.legacyCode == nil)
    }
}
