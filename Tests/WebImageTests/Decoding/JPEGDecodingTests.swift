import Foundation
import Testing
@testable import WebImage

/// Pixels of every kind of JPEG against djpeg's (or Pillow's, for CMYK) reference decode, byte for byte.
@Suite struct JPEGDecodingTests {
    let coder = JPEGCoder()

    /// Files that hold exactly the coefficients of baseline.jpg (lossless transcodes, or harmless oddities).
    @Test(arguments: [
        "baseline", "progressive", "restart", "extraneous-bytes", "trailing-data", "eoi-in-comment",
    ])
    func decodesLikeDjpeg(name: String) throws {
        let image = try coder.decode(Fixtures.data("jpeg/\(name).jpg"), options: DecodeOptions())
        let reference = try JPEGReference.load("jpeg/baseline.ppm")
        #expect(image.size == reference.size)
        #expect(image.pixels.bytes == reference.rgba)
    }

    @Test(arguments: ["sampling-444", "sampling-422", "sampling-440", "sampling-411", "grayscale"])
    func everySubsamplingAndGrayscale(name: String) throws {
        let image = try coder.decode(Fixtures.data("jpeg/\(name).jpg"), options: DecodeOptions())
        let reference = try JPEGReference.load("jpeg/\(name).\(name == "grayscale" ? "pgm" : "ppm")")
        #expect(image.size == reference.size)
        #expect(image.pixels.bytes == reference.rgba)
    }

    /// A sampling arrangement outside TurboJPEG's list (RGB with blue at half resolution, the layout of jpegli's
    /// XYB files) is decoded by libjpeg: baseline and progressive, whole and at the 1/2 and 1/8 DCT scales, as
    /// djpeg decodes them.
    @Test(arguments: ["sampling-rgb-221", "sampling-rgb-221-progressive"])
    func samplingOutsideTurboJPEGsListDecodesLikeDjpeg(name: String) throws {
        let data = try Fixtures.data("jpeg/\(name).jpg")
        for (box, referenceName) in [(nil, "sampling-rgb-221"), (PixelSize(width: 48, height: 32), "sampling-rgb-221-half"),
                                     (PixelSize(width: 12, height: 8), "sampling-rgb-221-eighth")] {
            let options = box.map { DecodeOptions(thumbnailPixelSize: $0) } ?? DecodeOptions()
            let image = try coder.decode(data, options: options)
            let reference = try JPEGReference.load("jpeg/\(referenceName).ppm")
            #expect(image.size == reference.size, "\(referenceName)")
            #expect(image.pixels.bytes == reference.rgba, "\(referenceName)")
        }
    }

    /// Adobe CMYK and YCCK against Pillow; APP14-less CMYK as plain (non-inverted) samples.
    @Test(arguments: ["cmyk", "ycck", "cmyk-no-adobe"])
    func cmykAndYCCKConvertToRGB(name: String) throws {
        let image = try coder.decode(Fixtures.data("jpeg/\(name).jpg"), options: DecodeOptions())
        let reference = try JPEGReference.load("jpeg/\(name).ppm")
        #expect(image.size == reference.size)
        #expect(image.pixels.bytes == reference.rgba)
        #expect(!image.hasAlpha)
    }

    @Test func knownColoursSurviveAt444() throws {
        let image = try coder.decode(Fixtures.data("jpeg/quadrants-444.jpg"), options: DecodeOptions())
        #expect(image.size == PixelSize(width: 64, height: 64))
        let expected = [RGBA(220, 40, 40), RGBA(40, 200, 60), RGBA(30, 60, 220), RGBA(240, 230, 40)]
        for (index, colour) in expected.enumerated() {
            let x = index % 2 == 0 ? 16 : 48, y = index < 2 ? 16 : 48
            #expect(JPEGReference.isClose(image.pixels[x, y], colour, tolerance: 3), "quadrant \(index)")
        }
    }

    @Test func describesTheImage() throws {
        let options = DecodeOptions(fileNameHint: "https://example.com/photo@2x.jpg")
        let image = try coder.decode(Fixtures.data("jpeg/baseline.jpg"), options: options)
        #expect(image.format == .jpeg)
        #expect(image.scale == 2)
        #expect(image.orientation == .up)
        #expect(image.flags == [])
        #expect(image.frames.count == 1)
        #expect(image.loopCount == 1)
        #expect(!image.pixels.containsTransparency)
        #expect(image.memoryCost == 96 * 64 * 4)
    }

    @Test func theRegistryUsesIt() throws {
        let image = try ImageCoders.shared.decode(Fixtures.data("jpeg/progressive.jpg"))
        #expect(image.format == .jpeg)
        #expect(image.size == PixelSize(width: 96, height: 64))
    }

    @Test func decodesADataSliceThatDoesNotStartAtZero() throws {
        let file = try Fixtures.data("jpeg/baseline.jpg")
        let padded = Data(repeating: 0, count: 7) + file
        let slice = padded[7...]
        let image = try coder.decode(slice, options: DecodeOptions())
        #expect(image.pixels.bytes == (try JPEGReference.load("jpeg/baseline.ppm").rgba))
    }
}

/// Reads the committed reference decodes (binary PPM / PGM) as RGBA.
enum JPEGReference {
    struct Decoded {
        var size: PixelSize
        var rgba: [UInt8]
    }

    static func load(_ path: String) throws -> Decoded {
        let bytes = [UInt8](try Fixtures.data(path))
        // Header: magic, width, height, maxval, each followed by one whitespace byte (djpeg and Pillow write "\n").
        var fields: [String] = []
        var index = 0
        while fields.count < 4 {
            var token = ""
            while index < bytes.count, bytes[index] > 0x20 {
                token.append(Character(UnicodeScalar(bytes[index])))
                index += 1
            }
            index += 1
            if !token.isEmpty { fields.append(token) }
        }
        guard let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255" else {
            throw ImageError(.badImageData, "bad PNM header in \(path)")
        }
        let channels = fields[0] == "P6" ? 3 : 1
        let samples = bytes[index...]
        guard samples.count == width * height * channels else {
            throw ImageError(.badImageData, "PNM \(path) holds \(samples.count) bytes")
        }
        var rgba: [UInt8] = []
        rgba.reserveCapacity(width * height * 4)
        var sample = samples.startIndex
        for _ in 0..<(width * height) {
            if channels == 3 {
                rgba += [samples[sample], samples[sample + 1], samples[sample + 2], 255]
            } else {
                rgba += [samples[sample], samples[sample], samples[sample], 255]
            }
            sample += channels
        }
        return Decoded(size: PixelSize(width: width, height: height), rgba: rgba)
    }

    /// Every colour channel within `tolerance`, alpha equal.
    static func isClose(_ a: RGBA, _ b: RGBA, tolerance: Int) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && a.a == b.a
    }

    /// Peak signal-to-noise ratio over the colour channels of two same-sized buffers, in dB.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let x = a.bytes, y = b.bytes
        var squaredError = 0.0
        var samples = 0
        for index in x.indices where index % 4 != 3 {
            let difference = Double(x[index]) - Double(y[index])
            squaredError += difference * difference
            samples += 1
        }
        guard squaredError > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (squaredError / Double(samples)))
    }
}
