import Foundation
import Testing
@testable import WebImage

/// Properties read from headers alone must agree with what a full decode reports, for every fixture a default
/// decode accepts, and must not depend on the pixel data.
@Suite struct ImagePropertiesTests {
    static let folders = ["jpeg", "png", "apng", "gif", "webp", "bmp", "ico", "transform", "incremental"]

    static var decodableFixtures: [String] {
        folders.flatMap { folder in
            ((try? Fixtures.files(in: folder)) ?? [])
                .filter { ImageFormat.detect((try? Data(contentsOf: $0)) ?? Data()) != .unknown }
                .map { "\(folder)/\($0.lastPathComponent)" }
        }
    }

    @Test("properties equal the full decode's facts", arguments: decodableFixtures)
    func agreeWithFullDecode(path: String) throws {
        let data = try Fixtures.data(path)
        guard let image = try? ImageCoders.shared.decode(data) else { return }  // bad-input fixtures
        var properties = try ImageCoders.shared.properties(of: data)
        // The colour fields describe the file's samples; a default decode has converted them to sRGB.
        #expect(image.colorProfile == nil)
        properties.describeColor(nil)
        #expect(properties == ImageProperties(of: image), "\(path)")
    }

    @Test func aThousandFramesAreCountedWithoutTheirPixels() throws {
        let gif = Self.gif(frames: 1000, delayCentiseconds: 7, loopCount: 3, imageData: [0xFF, 0xFF, 0xFF])
        let properties = try ImageCoders.shared.properties(of: gif)
        #expect(properties.format == .gif)
        #expect(properties.size == PixelSize(width: 4, height: 4))
        #expect(properties.frameCount == 1000)
        #expect(properties.loopCount == 3)
        #expect(properties.frameDurations == Array(repeating: 0.07, count: 1000))
        #expect(properties.hasAlpha == false)
        // The image data is not valid LZW: only a decoder that decompresses it can tell.
        #expect(throws: ImageError.self) { try ImageCoders.shared.decode(gif) }
    }

    @Test func gifTransparencyComesFromTheRecords() throws {
        let transparent = Self.gif(frames: 2, delayCentiseconds: 10, loopCount: 0, imageData: [0x00], transparentIndex: 0)
        #expect(try ImageCoders.shared.properties(of: transparent).hasAlpha)
    }

    @Test func truncatedFilesAreRefusedAsTheDecoderRefusesThem() throws {
        for path in ["gif/loop-3.gif", "apng/delays.png", "png/rgba8.png", "jpeg/baseline.jpg", "webp/lossy.webp"] {
            guard let data = try? Fixtures.data(path) else { continue }
            for cut in Fixtures.truncations(of: data) {
                #expect(throws: ImageError.self, "\(path) cut to \(cut.count)") {
                    try ImageCoders.shared.properties(of: cut)
                }
            }
        }
    }

    @Test func anEmptyCanvasIsRefusedAsTheDecoderRefusesIt() throws {
        // Found by FuzzProperties: a zero screen and a frame of width 0 at row 3.
        let gif = Data(base64Encoded: "R0lGODlhAAAAAJEAAMgeHh7IHh4eyNzcFCwAAAMAAAACAAACA0Q1VgA7")!
        #expect { try ImageCoders.shared.decode(gif) } throws: { ($0 as? ImageError)?.code == .badImageData }
        #expect { try ImageCoders.shared.properties(of: gif) } throws: { ($0 as? ImageError)?.code == .badImageData }
    }

    @Test func recognisedButUnreadableFormatsNameThemselves() throws {
        let heic = Data([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let coders = ImageCoders(coders: ImageCoders.builtIn)
        #expect(ImageFormat.detect(heic) == .heic)
        #expect { try coders.properties(of: heic) } throws: { ($0 as? ImageError)?.code == .unsupportedFormat }
        #expect { try coders.properties(of: Data("plain text".utf8)) } throws: { ($0 as? ImageError)?.code == .badImageData }
    }

    /// A GIF of `frames` 4×4 frames with the given image data bytes (after an LZW minimum code size of 2).
    static func gif(frames: Int, delayCentiseconds: Int, loopCount: Int, imageData: [UInt8],
                    transparentIndex: UInt8? = nil) -> Data {
        var bytes = Array("GIF89a".utf8) + [4, 0, 4, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]  // 2-colour table
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8), 0]
        for _ in 0..<frames {
            let flags: UInt8 = transparentIndex == nil ? 0 : 1
            bytes += [0x21, 0xF9, 4, flags, UInt8(delayCentiseconds & 0xFF), UInt8(delayCentiseconds >> 8),
                      transparentIndex ?? 0, 0]
            bytes += [0x2C, 0, 0, 0, 0, 4, 0, 4, 0, 0]
            bytes += [2, UInt8(imageData.count)] + imageData + [0]
        }
        return Data(bytes + [0x3B])
    }
}
