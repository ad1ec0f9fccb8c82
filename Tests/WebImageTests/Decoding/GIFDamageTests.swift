import Foundation
import Testing
@testable import WebImage

/// Damaged data and decompression bombs: typed errors or the complete frames, never a crash, hang or huge allocation.
@Suite("GIF damage and limits")
struct GIFDamageTests {
    typealias C = GIFColors

    static let wellFormed = [
        "static-opaque.gif", "static-transparent.gif", "interlaced.gif", "interlaced-clipped.gif", "no-palette.gif",
        "screen-zero.gif", "dispose-none.gif", "dispose-background.gif", "dispose-previous.gif", "dispose-previous-first.gif",
        "frame-outside.gif", "local-palettes.gif", "delays.gif", "no-netscape.gif", "loop-0.gif", "loop-3.gif",
        "magick-optimized.gif",
    ]

    @Test("a whole file reports no error", arguments: wellFormed)
    func wholeFileHasNoError(name: String) throws {
        let result = try GIFCoder().decodeCompleteFrames(Fixtures.data("gif/\(name)"), options: DecodeOptions())
        #expect(result.error == nil)
    }

    @Test("a corrupt middle frame stops decoding after the frames before it")
    func corruptMiddleFrame() throws {
        let data = try Fixtures.data("gif/corrupt-middle.gif")
        #expect { try GIFCoder().decode(data, options: DecodeOptions()) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }

        let result = try GIFCoder().decodeCompleteFrames(data, options: DecodeOptions())
        #expect(result.image.frames.count == 1)
        #expect(GIFTesting.mismatch(result.image.pixels) { _, _ in C.a } == nil)
        #expect(result.error?.code == .badImageData)
        #expect(result.error?.message.contains("ends before its last pixel") == true)
    }

    @Test("a file without its trailer is refused whole, and the partial API gives its frames")
    func missingTrailer() throws {
        let data = try Fixtures.data("gif/missing-trailer.gif")
        let result = try GIFCoder().decodeCompleteFrames(data, options: DecodeOptions())
        #expect(result.image.frames.count == 1)
        #expect(result.error?.code == .badImageData)
        #expect(result.error?.message.contains("without a trailer") == true)
        #expect(result.image.size == PixelSize(width: 16, height: 8))
        #expect { try GIFCoder().decode(data, options: DecodeOptions()) } throws: {
            ($0 as? ImageError)?.code == .badImageData
        }
    }

    @Test("every cut of every fixture gives the frames completed before the cut, or badImageData",
          arguments: wellFormed)
    func truncations(name: String) throws {
        let data = try Fixtures.data("gif/\(name)")
        let whole = try GIFCoder().decode(data, options: DecodeOptions())
        for cut in Fixtures.truncations(of: data) {
            do {
                let result = try GIFCoder().decodeCompleteFrames(cut, options: DecodeOptions())
                #expect(result.error?.code == .badImageData, "cut at \(cut.count)")
                #expect(result.image.frames.count <= whole.frames.count)
                for (number, frame) in result.image.frames.enumerated() {
                    #expect(frame.pixels.bytes == whole.frames[number].pixels.bytes, "cut at \(cut.count)")
                }
            } catch let error as ImageError {
                #expect(error.code == .badImageData, "cut at \(cut.count): \(error)")
            }
        }
    }

    @Test("every single flipped byte gives an image or a typed error", arguments: [
        "dispose-previous.gif", "local-palettes.gif", "interlaced.gif",
    ])
    func flippedBytes(name: String) throws {
        let data = try Fixtures.data("gif/\(name)")
        let limits = DecodeLimits(maxPixels: 1 << 20, maxFrames: 100, maxTotalPixels: 1 << 22)
        for position in data.indices {
            var damaged = data
            damaged[position] ^= 0xFF
            do {
                let image = try GIFCoder().decode(damaged, options: DecodeOptions(limits: limits))
                #expect(image.frames.allSatisfy { $0.pixels.size == image.size })
            } catch let error as ImageError {
                #expect([.badImageData, .imageTooLarge].contains(error.code), "byte \(position): \(error)")
            }
        }
    }

    @Test("data that is not a GIF is refused", arguments: [
        Data(), Data("GIF89a".utf8), Data("GIF89a\u{1}\u{0}\u{1}".utf8), Data("hello, world".utf8),
        Data(repeating: 0, count: 64),
    ])
    func notGIF(data: Data) {
        #expect(throws: ImageError.self) { try GIFCoder().decode(data, options: DecodeOptions()) }
        do {
            _ = try GIFCoder().decode(data, options: DecodeOptions())
        } catch let error as ImageError {
            #expect(error.code == .badImageData)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a 60000x60000 canvas is refused before anything is allocated")
    func canvasBomb() throws {
        let error = #expect(throws: ImageError.self) {
            try GIFTesting.decode("bomb-canvas-60000.gif")
        }
        #expect(error?.code == .imageTooLarge)
    }

    @Test("4000 frames decode under the default limits and are refused over a lower frame limit")
    func frameLimit() throws {
        let image = try GIFTesting.decode("bomb-4000-frames.gif")
        #expect(image.frames.count == 4000)
        #expect(image.frames[3999].pixels[0, 0] == C.white)
        let limited = DecodeOptions(limits: DecodeLimits(maxFrames: 1000))
        let error = #expect(throws: ImageError.self) { try GIFTesting.decode("bomb-4000-frames.gif", options: limited) }
        #expect(error?.code == .imageTooLarge)
    }

    @Test("100 000 tiny frames are refused by the default frame limit; the first frame alone still decodes")
    func hundredThousandFrames() throws {
        let template = try Fixtures.data("gif/bomb-4000-frames.gif")
        // Header (13 bytes) and a two-colour global table (6), 4000 equal-sized frame records, the trailer.
        let headerLength = 19
        let recordLength = (template.count - headerLength - 1) / 4000
        var bomb = Data(template.prefix(headerLength))
        let record = template[headerLength..<(headerLength + recordLength)]
        for _ in 0..<100_000 { bomb.append(record) }
        bomb.append(0x3B)
        let error = #expect(throws: ImageError.self) { try GIFCoder().decode(bomb, options: DecodeOptions()) }
        #expect(error?.code == .imageTooLarge)
        let first = try GIFCoder().decode(bomb, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
    }

    @Test("the pixel limit and the limit over all frames apply to the canvas")
    func pixelLimits() throws {
        let tooBig = DecodeOptions(limits: DecodeLimits(maxPixels: 63))
        #expect((#expect(throws: ImageError.self) { try GIFTesting.decode("dispose-none.gif", options: tooBig) })?
            .code == .imageTooLarge)
        // Three 8x8 frames are 192 pixels in all.
        let tooMany = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 191))
        #expect((#expect(throws: ImageError.self) { try GIFTesting.decode("dispose-none.gif", options: tooMany) })?
            .code == .imageTooLarge)
        let enough = DecodeOptions(limits: DecodeLimits(maxTotalPixels: 192))
        #expect(try GIFTesting.decode("dispose-none.gif", options: enough).frames.count == 3)
    }
}
