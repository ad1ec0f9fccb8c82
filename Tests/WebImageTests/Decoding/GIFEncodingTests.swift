import Foundation
import Testing
@testable import WebImage

@Suite("GIF encoding: palettes, transparency, animation round trips")
struct GIFEncodingTests {
    typealias C = GIFColors

    func roundTrip(_ image: Image, coder: GIFCoder = GIFCoder(), options: EncodeOptions = EncodeOptions()) throws
        -> Image
    {
        let data = try coder.encode(image, as: .gif, options: options)
        #expect(ImageFormat.detect(data) == .gif)
        return try coder.decode(data, options: DecodeOptions())
    }

    /// 240 distinct colours: the encoder must keep every one exactly.
    static func manyColors(_ frame: Int, _ x: Int, _ y: Int) -> RGBA {
        let index = (y * 16 + x + frame * 7) % 240
        return RGBA(UInt8(index), UInt8(255 - index), UInt8((index * 7) % 256))
    }

    /// A smooth two-dimensional gradient of 4096 colours: more than a palette holds.
    static func gradient(_ x: Int, _ y: Int) -> RGBA {
        RGBA(UInt8(x * 4), UInt8(y * 4), UInt8(255 - (x + y) * 2))
    }

    @Test("a still image of at most 256 colours survives exactly")
    func exactStill() throws {
        let image = try GIFTesting.image(width: 16, height: 15, durations: [0]) { f, x, y in Self.manyColors(f, x, y) }
        let decoded = try roundTrip(image)
        #expect(decoded.frames.count == 1)
        #expect(!decoded.hasAlpha)
        #expect(decoded.pixels.bytes == image.pixels.bytes)
    }

    @Test("exactly 256 opaque colours fit; 256 plus transparency are reduced but stay close")
    func paletteBoundary() throws {
        let full = try GIFTesting.image(width: 16, height: 16, durations: [0]) { _, x, y in
            RGBA(UInt8(y * 16 + x), UInt8(x * 3), UInt8(y * 5))
        }
        #expect(try roundTrip(full).pixels.bytes == full.pixels.bytes)
        let withHole = try GIFTesting.image(width: 16, height: 17, durations: [0]) { _, x, y in
            y == 16 ? C.clear : RGBA(UInt8(y * 16 + x), UInt8(x * 3), UInt8(y * 5))
        }
        let decoded = try roundTrip(withHole, coder: GIFCoder(dithering: false))
        #expect(decoded.pixels[0, 16] == C.clear)
        #expect(Self.maxChannelError(decoded.pixels, withHole.pixels) <= 16)
    }

    @Test("alpha below 128 becomes transparent, the rest opaque")
    func transparency() throws {
        let image = try GIFTesting.image(width: 4, height: 1, durations: [0]) { _, x, _ in
            [RGBA(10, 20, 30, 0), RGBA(10, 20, 30, 127), RGBA(40, 50, 60, 128), RGBA(70, 80, 90, 255)][x]
        }
        let decoded = try roundTrip(image)
        #expect(decoded.hasAlpha)
        #expect(decoded.pixels.bytes == [0, 0, 0, 0, 0, 0, 0, 0, 40, 50, 60, 255, 70, 80, 90, 255])
    }

    @Test("an image with too many colours is reduced to 256 and stays close", arguments: [false, true])
    func quantized(dithering: Bool) throws {
        let image = try GIFTesting.image(width: 64, height: 64, durations: [0]) { _, x, y in Self.gradient(x, y) }
        let decoded = try roundTrip(image, coder: GIFCoder(dithering: dithering))
        #expect(Set(decoded.pixels.bytes.chunked4).count <= 256)
        // Measured on this gradient: 2.6 mean / 10 worst per channel plain, 2.7 / 14 dithered.
        // (Dithering trades per-pixel error for area accuracy; see the next test.)
        #expect(Self.meanAbsoluteError(decoded.pixels, image.pixels) < 3.5)
        #expect(Self.maxChannelError(decoded.pixels, image.pixels) <= (dithering ? 20 : 14))
    }

    @Test("dithering keeps the average colour of each area closer to the original")
    func ditheringPreservesAreaColor() throws {
        let image = try GIFTesting.image(width: 64, height: 64, durations: [0]) { _, x, y in Self.gradient(x, y) }
        let plain = try roundTrip(image, coder: GIFCoder(dithering: false))
        let dithered = try roundTrip(image, coder: GIFCoder(dithering: true))
        let plainError = Self.blockMeanError(plain.pixels, image.pixels)
        let ditheredError = Self.blockMeanError(dithered.pixels, image.pixels)
        #expect(ditheredError < plainError)
    }

    @Test("an opaque animation keeps frames, pixels, durations and loop count", arguments: [0, 3])
    func animationRoundTrip(loopCount: Int) throws {
        let image = try GIFTesting.image(width: 16, height: 15, durations: [0.05, 0.2, 1.0], loopCount: loopCount) {
            f, x, y in
            // Frames differ only inside a small moving square, so later frames are stored as sub-rectangles.
            GIFTesting.inSquare(x, y, left: f * 3, top: f * 2, side: 4) ? C.d : Self.manyColors(0, x, y)
        }
        let decoded = try roundTrip(image)
        #expect(decoded.frames.count == 3)
        #expect(decoded.loopCount == loopCount)
        #expect(decoded.frames.map(\.duration) == [0.05, 0.2, 1.0])
        #expect(!decoded.hasAlpha)
        for number in 0..<3 {
            #expect(decoded.frames[number].pixels.bytes == image.frames[number].pixels.bytes, "frame \(number)")
        }
    }

    @Test("later frames of an opaque animation store only what changed")
    func changedRectangles() throws {
        let image = try GIFTesting.image(width: 64, height: 64, durations: [0.1, 0.1]) { f, x, y in
            f == 1 && x == 10 && y == 20 ? C.d : Self.gradient(x, y)
        }
        let animation = try GIFCoder().encode(image, as: .gif, options: EncodeOptions())
        let firstOnly = try GIFCoder().encode(image, as: .gif, options: EncodeOptions(firstFrameOnly: true))
        #expect(animation.count < firstOnly.count + 100)
        #expect(GIFEncoder.changedRect(from: image.frames[0].pixels, to: image.frames[1].pixels)
                == PixelRect(x: 10, y: 20, width: 1, height: 1))
        let decoded = try GIFCoder().decode(animation, options: DecodeOptions())
        #expect(decoded.frames[1].pixels[10, 20] == C.d)
        #expect(decoded.frames[1].pixels[11, 20] == decoded.frames[0].pixels[11, 20])
    }

    @Test("an animation whose pixels turn transparent keeps them transparent")
    func transparentAnimation() throws {
        let image = try GIFTesting.image(width: 6, height: 6, durations: [0.1, 0.1, 0.1]) { f, x, y in
            if f == 1 && x < 3 { return C.clear }
            if f == 2 && y >= 3 { return C.clear }
            return [C.a, C.b, C.c][f]
        }
        let data = try GIFCoder().encode(image, as: .gif, options: EncodeOptions())
        // Every graphic control block (21 F9 04, then the flags) is disposal 2 with the transparency flag set.
        var flags: [UInt8] = []
        var searchFrom = data.startIndex
        while let found = data.range(of: Data([0x21, 0xF9, 0x04]), in: searchFrom..<data.endIndex) {
            flags.append(data[found.upperBound])
            searchFrom = found.upperBound
        }
        #expect(flags == [0x09, 0x09, 0x09])
        let decoded = try GIFCoder().decode(data, options: DecodeOptions())
        #expect(decoded.hasAlpha)
        for number in 0..<3 {
            #expect(decoded.frames[number].pixels.bytes == image.frames[number].pixels.bytes, "frame \(number)")
        }
    }

    @Test("identical frames are kept as separate frames")
    func identicalFrames() throws {
        let image = try GIFTesting.image(width: 4, height: 4, durations: [0.1, 0.3, 0.5]) { _, _, _ in C.b }
        let decoded = try roundTrip(image)
        #expect(decoded.frames.map(\.duration) == [0.1, 0.3, 0.5])
        #expect(decoded.frames.allSatisfy { $0.pixels.bytes == image.pixels.bytes })
    }

    @Test("a loop count of 1 writes no NETSCAPE2.0 extension, which reads back as 1")
    func playOnce() throws {
        let image = try GIFTesting.image(width: 2, height: 2, durations: [0.1, 0.1], loopCount: 1) { f, _, _ in
            f == 0 ? C.a : C.b
        }
        let data = try GIFCoder().encode(image, as: .gif, options: EncodeOptions())
        #expect(data.range(of: Data("NETSCAPE2.0".utf8)) == nil)
        #expect(try GIFCoder().decode(data, options: DecodeOptions()).loopCount == 1)
        let forever = try GIFCoder().encode(
            Image(frames: image.frames, loopCount: 0), as: .gif, options: EncodeOptions())
        #expect(forever.range(of: Data("NETSCAPE2.0".utf8)) != nil)
    }

    @Test("firstFrameOnly writes a still image; maxPixelSize scales down")
    func encodeOptions() throws {
        let image = try GIFTesting.image(width: 8, height: 4, durations: [0.1, 0.1]) { f, _, _ in f == 0 ? C.a : C.b }
        let still = try roundTrip(image, options: EncodeOptions(firstFrameOnly: true))
        #expect(still.frames.count == 1)
        #expect(still.pixels[0, 0] == C.a)
        let small = try roundTrip(image, options: EncodeOptions(maxPixelSize: 4))
        #expect(small.size == PixelSize(width: 4, height: 2))
        #expect(small.frames.count == 2)
        #expect(small.frames[1].pixels[1, 1] == C.b)
    }

    @Test("decoded fixtures encode and decode to the same frames", arguments: [
        "dispose-background.gif", "dispose-previous.gif", "local-palettes.gif", "magick-optimized.gif",
    ])
    func reencodeFixtures(name: String) throws {
        let original = try GIFTesting.decode(name)
        let decoded = try roundTrip(original)
        #expect(decoded.frames.count == original.frames.count)
        #expect(decoded.loopCount == original.loopCount)
        #expect(decoded.frames.map(\.duration) == original.frames.map(\.duration))
        for number in original.frames.indices {
            #expect(decoded.frames[number].pixels.bytes == original.frames[number].pixels.bytes, "frame \(number)")
        }
    }

    @Test("the registry encodes GIF; the GIF coder refuses other formats")
    func formats() throws {
        let image = try GIFTesting.image(width: 2, height: 2, durations: [0]) { _, _, _ in C.c }
        let data = try ImageCoders.shared.encode(image, as: .gif)
        #expect(try ImageCoders.shared.decode(data).pixels[1, 1] == C.c)
        let error = #expect(throws: ImageError.self) {
            try GIFCoder().encode(image, as: .png, options: EncodeOptions())
        }
        #expect(error?.code == .unsupportedFormat)
    }

    static func meanAbsoluteError(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let x = a.bytes, y = b.bytes
        let total = zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(x.count)
    }

    /// The mean, over 4x4 blocks and channels, of the difference between the blocks' average colours.
    static func blockMeanError(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var total = 0.0, count = 0
        for top in stride(from: 0, to: a.height, by: 4) {
            for left in stride(from: 0, to: a.width, by: 4) {
                var sumA = [0, 0, 0], sumB = [0, 0, 0]
                for y in top..<(top + 4) {
                    for x in left..<(left + 4) {
                        let p = a[x, y], q = b[x, y]
                        sumA[0] += Int(p.r); sumA[1] += Int(p.g); sumA[2] += Int(p.b)
                        sumB[0] += Int(q.r); sumB[1] += Int(q.g); sumB[2] += Int(q.b)
                    }
                }
                for channel in 0..<3 { total += Double(abs(sumA[channel] - sumB[channel])) / 16 }
                count += 3
            }
        }
        return total / Double(count)
    }

    static func maxChannelError(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}

extension Array where Element == UInt8 {
    /// The bytes grouped four by four (one RGBA pixel each), as 32-bit values.
    var chunked4: [UInt32] {
        stride(from: 0, to: count - 3, by: 4).map {
            UInt32(self[$0]) << 24 | UInt32(self[$0 + 1]) << 16 | UInt32(self[$0 + 2]) << 8 | UInt32(self[$0 + 3])
        }
    }
}
