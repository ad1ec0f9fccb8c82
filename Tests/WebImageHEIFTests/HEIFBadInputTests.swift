import CoderTestSupport
import Foundation
import Testing
import WebImage
import WebImageHEIF

/// Properties against full decodes, limits from the header, truncated and corrupt files.
@Suite struct HEIFBadInputTests {
    let coder = HEIFCoder()

    @Test(arguments: HEIFFixtures.decodable)
    func propertiesAgreeWithADefaultDecode(name: String) throws {
        let data = try HEIFFixtures.data(name)
        let properties = try coder.properties(of: data)
        #expect(properties == ImageProperties(of: try coder.decode(data, options: DecodeOptions())))
        #expect(properties.frameCount == 1 && properties.loopCount == 1 && properties.frameDurations.isEmpty)
    }

    /// FuzzHEIF found it: an `nclx` colour box with values libheif does not know, which libheif reports as an
    /// error while still handing out the profile. The profile is freed either way (LeakSanitizer, in the
    /// AddressSanitizer run, reported its 52 bytes before); the file is read as far as it goes, without a colour
    /// description from that box.
    @Test func anNCLXBoxWithUnknownValuesIsReadWithoutItAndNothingLeaks() throws {
        let data = try HEIFFixtures.data("fuzz-nclx-unknown-values.heic")
        if let properties = try? coder.properties(of: data) {
            #expect(properties.colorProfile?.codePoints == nil)
        }
        _ = try? coder.decode(data, options: DecodeOptions())
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let data = try HEIFFixtures.data("photo.heic")
        let error = #expect(throws: ImageError.self) {
            try coder.decode(data, options: DecodeOptions(limits: DecodeLimits(maxPixels: 64 * 48 - 1)))
        }
        #expect(error?.code == .imageTooLarge)
    }

    @Test func aHeaderDeclaringAHugeImageIsRefused() throws {
        let bomb = HEIFFixtures.withDeclaredSize(try HEIFFixtures.data("photo.heic"), width: 60_000, height: 60_000)
        let error = #expect(throws: ImageError.self) { try coder.decode(bomb, options: DecodeOptions()) }
        #expect(error?.code == .imageTooLarge)
    }

    @Test(arguments: ["photo.heic", "alpha.heic", "thumb.heic"])
    func truncationsThrowTypedErrors(name: String) throws {
        let data = try HEIFFixtures.data(name)
        for length in [0, 1, 12, 20, 40, data.count / 4, data.count / 2, data.count - 100, data.count - 1] {
            let error = #expect(throws: ImageError.self, "\(name) cut to \(length) bytes") {
                try coder.decode(data.prefix(length), options: DecodeOptions())
            }
            #expect(error?.code == .badImageData, "\(name) cut to \(length) bytes: \(String(describing: error))")
        }
    }

    /// Every prefix of a small file: each one refused as bad data, none decoded into a wrong image.
    @Test func everyPrefixIsRefused() throws {
        let data = try HEIFFixtures.data("photo.heic")
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

    /// Bytes changed at pseudo-random places: a typed error or an image, never a crash or a hang.
    @Test(arguments: ["photo.heic", "alpha.heic", "rotated.heic"])
    func corruptCopiesDoNotCrash(name: String) throws {
        let data = try HEIFFixtures.data(name)
        var generator = SplitMix(seed: 0x4845_4946)
        for _ in 0..<60 {
            var bytes = [UInt8](data)
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            let options = DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20))
            do {
                let image = try coder.decode(Data(bytes), options: options)
                #expect(image.size.area <= 1 << 20)
            } catch let error as ImageError {
                #expect([.badImageData, .unsupportedFormat, .imageTooLarge].contains(error.code))
            }
        }
    }
}
