import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageSVG

/// Gzipped SVG documents (`.svgz`): recognised from what they inflate to, drawn like the plain document, and
/// inflated only up to a limit, so a gzip bomb is a typed error rather than gigabytes.
@Suite struct SVGZTests {
    let coder = SVGCoder()

    @Test(arguments: SVGFixtures.renderable.map(\.name))
    func aGzippedDocumentIsDrawnLikeThePlainOne(name: String) throws {
        let plain = try SVGFixtures.data("\(name).svg")
        let compressed = GzipWriter.compress(plain)
        #expect(compressed.prefix(2) == Data([0x1F, 0x8B]))
        #expect(ImageFormat.detect(compressed) == .svg)
        #expect(coder.canDecode(compressed))
        let image = try coder.decode(compressed, options: DecodeOptions())
        #expect(image.format == .svg)
        #expect(image.pixels.bytes == (try coder.decode(plain, options: DecodeOptions())).pixels.bytes)
        #expect(try coder.properties(of: compressed) == (try coder.properties(of: plain)))
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        #expect(try coder.decode(compressed, options: thumbnail).pixels.bytes
            == (try coder.decode(plain, options: thumbnail)).pixels.bytes)
    }

    @Test func theRegistryReadsIt() throws {
        let coders = ImageCoders(coders: ImageCoders.builtIn + [coder])
        let compressed = GzipWriter.compress(try SVGFixtures.data("shapes.svg"))
        #expect(try coders.decode(compressed).size == PixelSize(width: 64, height: 48))
        #expect(try coders.properties(of: compressed).format == .svg)
    }

    /// The bomb writer makes real gzip: a small one inflates to exactly its zeros, CRC and length checked.
    @Test func theBombWriterWritesValidGzip() throws {
        let inflated = try Gzip.inflate(GzipWriter.zeros(mebibytes: 2), limit: 4 << 20)
        #expect(inflated.count == 2 << 20 && inflated.allSatisfy { $0 == 0 })
    }

    /// 1 GiB of zeros in about 1 MB: refused once the limit is reached, by detection, decoding and properties,
    /// none of them inflating more than the limit.
    @Test func aGzipBombIsATypedError() throws {
        let bomb = GzipWriter.zeros(mebibytes: 1024)
        #expect(bomb.count < 8 << 20)
        #expect(ImageFormat.detect(bomb) == .unknown)
        #expect(errorCode { try Gzip.inflate(bomb) } == .imageTooLarge)
        #expect(errorCode { try coder.decode(bomb, options: DecodeOptions()) } == .imageTooLarge)
        #expect(errorCode { try coder.properties(of: bomb) } == .imageTooLarge)
        // A bomb that starts like SVG is claimed, and refused the same way.
        var document = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><!-- "#.utf8)
        document.append(Data(repeating: 0x20, count: Gzip.defaultLimit))
        let svgBomb = GzipWriter.compress(document + Data("--></svg>".utf8))
        #expect(ImageFormat.detect(svgBomb) == .svg)
        #expect(errorCode { try coder.decode(svgBomb, options: DecodeOptions()) } == .imageTooLarge)
    }

    @Test func gzippedDataThatIsNotSVGIsNotClaimed() throws {
        let png = try PNGCoder().encode(Image(pixels: try PixelBuffer(width: 4, height: 4)), as: .png,
                                        options: EncodeOptions())
        for content in [Data("hello, world".utf8), png, Data("<html><body>no image</body></html>".utf8)] {
            let compressed = GzipWriter.compress(content)
            #expect(ImageFormat.detect(compressed) == .unknown)
            #expect(!coder.canDecode(compressed))
        }
        #expect(errorCode { try ImageCoders.shared.decode(GzipWriter.compress(Data("hello".utf8))) } != nil)
    }

    @Test func aCutOrDamagedStreamIsBadImageData() throws {
        let compressed = GzipWriter.compress(try SVGFixtures.data("gradient.svg"))
        #expect(errorCode { try coder.decode(compressed.prefix(compressed.count - 4), options: DecodeOptions()) }
            == .badImageData)
        var damaged = compressed
        damaged[damaged.startIndex + damaged.count - 6] ^= 0xFF  // inside the CRC-32
        #expect(errorCode { try coder.decode(damaged, options: DecodeOptions()) } == .badImageData)
        #expect(errorCode { try Gzip.inflate(Data([0x1F, 0x8B, 8])) } == .badImageData)
    }
}
