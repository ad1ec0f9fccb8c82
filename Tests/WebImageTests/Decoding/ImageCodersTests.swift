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

    @Test func errorCodesKeepSDWebImageNumbers() {
        #expect(ImageError.Code.invalidURL.legacyCode == 1000)
        #expect(ImageError.Code.cancelled.legacyCode == 2002)
        #expect(ImageError.Code.invalidDownloadContentType.legacyCode == 2004)
        #expect(ImageError.Code.imageTooLarge.legacyCode == nil)
    }
}
