import Foundation
import Testing
@testable import WebImage
import WebImageAVIF
import WebImageHEIF
import WebImagePDF
import WebImageServer
import WebImageTIFF

/// The decode helpers at the library level: real `webimage _decode-helper` processes behind an ``IsolatedCoder``.
@Suite struct DecodeHelperPoolTests {
    static func pool(size: Int, timeout: Duration = .seconds(600), extraArguments: [String] = []) throws
        -> DecodeHelperPool
    {
        try DecodeHelperPool(configuration: .init(
            executable: CommandLineTool.executable,
            arguments: DecoderIsolation().helperArguments + extraArguments, size: size, timeout: timeout))
    }

    /// The coders the helpers run, in this process: the reference for their pixels.
    static let inProcess = ImageCoders(coders: ImageCoders.builtIn + [HEIFCoder(), TIFFCoder(), PDFCoder(),
                                                                      AVIFCoder()])

    /// A lossless AVIF of 16-bit samples (written with 12 bits) and straight alpha, for deep decodes.
    static func deepAVIF() throws -> Data {
        var samples: [UInt16] = []
        for index in 0..<(24 * 16) {
            let red = UInt16(index * 167), green = UInt16(65_535 - index * 97)
            samples += [red, green, UInt16(index * 53 + 9), UInt16(30_000 + index * 11)]
        }
        let deep = try DeepPixelBuffer(width: 24, height: 16, samples: samples)
        return try inProcess.encode(Image(frames: [ImageFrame(deep: deep)], flags: .hasAlpha), as: .avif,
                                    options: EncodeOptions(lossless: true))
    }

    @Test func concurrentDecodesWithCrashesInterleavedAreAllAnsweredWithInProcessPixels() async throws {
        let pool = try Self.pool(size: 3)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let crash = try IsolationFixtures.crashingHEIC()
        let good: [(Data, DecodeOptions)] = [
            (try IsolationFixtures.heic("photo"), DecodeOptions()),
            (try IsolationFixtures.heic("rotated"), DecodeOptions()),
            (try IsolationFixtures.heic("alpha"), DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))),
            (try IsolationFixtures.tiff("gray8"), DecodeOptions()),
            (try IsolationFixtures.tiff("alpha-unassociated"), DecodeOptions()),
            (try IsolationFixtures.pdf("shapes"), DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 40))),
            (try Self.deepAVIF(), DecodeOptions(keepsHighBitDepth: true)),
        ]
        let expected = try good.map { try Self.inProcess.decode($0.0, options: $0.1) }
        // The crashing file takes its helper seconds of recursion to die: a few of them among many good ones.
        let count = 240, crashEvery = 40
        let outcomes = Locked<[Int: Result<Image, ImageError>]>([:])  // pthread: visible to ThreadSanitizer
        await IsolationFixtures.runOnThreads(12, count: count) { index in
            let (data, options) = index % crashEvery == 0 ? (crash, DecodeOptions()) : good[index % good.count]
            let outcome = Result { () throws(ImageError) in
                do {
                    return try coders.decode(data, options: options)
                } catch {
                    throw error as? ImageError ?? ImageError(.io, "\(error)")
                }
            }
            outcomes.withLock { $0[index] = outcome }
        }
        let answered = outcomes.withLock { $0 }
        #expect(answered.count == count)
        for index in 0..<count {
            switch answered[index] {
            case .failure(let error) where index % crashEvery == 0:
                #expect(error.code == .badImageData)
            case .success(let image) where index % crashEvery != 0:
                let reference = expected[index % good.count]
                #expect(image.size == reference.size && image.format == reference.format)
                #expect(image.flags == reference.flags && image.orientation == reference.orientation)
                #expect(image.pixels.bytes == reference.pixels.bytes, "request \(index)")
                #expect(image.frames[0].deepPixels == reference.frames[0].deepPixels, "request \(index)")
            default:
                Issue.record("request \(index) got \(String(describing: answered[index]))")
            }
        }
        #expect(pool.restartCount == count / crashEvery)
        #expect(pool.busyCount == 0)
    }

    /// A deep decode (`preserve_hdr`) crosses the pipe with its sixteen-bit samples, not only the rounded bytes.
    @Test func deepSamplesComeBackFromTheHelpers() throws {
        let pool = try Self.pool(size: 1)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let avif = try Self.deepAVIF()
        let keeping = DecodeOptions(keepsHighBitDepth: true)
        let reference = try Self.inProcess.decode(avif, options: keeping)
        let expected = try #require(reference.frames[0].deepPixels)
        #expect(expected.significantBits == 12)
        let decoded = try coders.decode(avif, options: keeping)
        #expect(decoded.frames[0].deepPixels == expected)
        #expect(decoded.pixels.bytes == reference.pixels.bytes && decoded.hasAlpha)
        #expect(try coders.decode(avif).frames[0].deepPixels == nil)
        #expect(pool.restartCount == 0)
    }

    @Test func propertiesComeFromTheHelpersToo() throws {
        let pool = try Self.pool(size: 1)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let photo = try IsolationFixtures.heic("rotated")
        #expect(try coders.properties(of: photo) == Self.inProcess.properties(of: photo))
        #expect(throws: ImageError.self) { try coders.properties(of: Data("II*\0 not a tiff".utf8)) }
        #expect(pool.restartCount == 0)  // a decoder's error is an answer, not a failure of the helper
    }

    /// `enforce_thumbnail` crosses the pipe: the helper (the `webimage` executable, whose AVIF coder reads
    /// thumbnails through libheif) answers the 40×30 thumbnail items of the 160×120 fixtures.
    @Test func embeddedThumbnailsAreAskedOfTheHelpers() throws {
        let pool = try Self.pool(size: 1)
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let thumbnail = DecodeOptions(prefersEmbeddedThumbnail: true)
        let heic = try IsolationFixtures.heic("thumb")
        let decoded = try coders.decode(heic, options: thumbnail)
        #expect(decoded.size == PixelSize(width: 40, height: 30) && decoded.flags.contains(.thumbnail))
        #expect(decoded.pixels.bytes == (try Self.inProcess.decode(heic, options: thumbnail)).pixels.bytes)
        #expect(try coders.decode(heic).size == PixelSize(width: 160, height: 120))
        let avif = try IsolationFixtures.file("Tests/WebImageHEIFTests/Fixtures/thumb.avif")
        #expect(try coders.decode(avif, options: thumbnail).size == PixelSize(width: 40, height: 30))
        #expect(try coders.decode(avif).size == PixelSize(width: 160, height: 120))
    }

    @Test func aHelperThatStopsAnsweringIsKilledAndItsRequestFailsWithATypedError() throws {
        // The limit must also let the replacement start and decode a photo: under AddressSanitizer on a loaded
        // machine that took over a second (CI, 2026-11-25). A hang is waited out for the whole limit.
        let pool = try Self.pool(size: 1, timeout: .seconds(10), extraArguments: ["--test-hang-marker", "HANG"])
        let coders = ImageCoders.isolating(IsolatedCoder.defaultFormats, in: pool, behind: Self.inProcess)
        let hanging = Data([0x49, 0x49, 0x2A, 0x00]) + Data("HANG".utf8)  // a TIFF signature: sent to a helper
        let error = #expect(throws: ImageError.self) { try coders.decode(hanging) }
        #expect(error?.code == .badImageData)
        #expect(error?.message.contains("stopped") == true)
        #expect(pool.restartCount == 1 && pool.busyCount == 0)
        // The replacement helper answers the next request.
        let photo = try IsolationFixtures.heic("photo")
        #expect(try coders.decode(photo).pixels.bytes == Self.inProcess.decode(photo).pixels.bytes)
    }

    /// Under a sanitizer the helper sets no address-space limit (the sanitizer's shadow memory would exceed any):
    /// there is nothing to test there.
    @Test(.enabled(if: !IsolationFixtures.runsUnderASanitizer))
    func aDecodeOverTheHelpersMemoryLimitFailsWithATypedErrorAndTheNextOneIsServed() throws {
        let gradient = try PixelBuffer(width: 1920, height: 1080, filledWith: RGBA(40, 90, 200))
        let large = try AVIFCoder().encode(Image(pixels: gradient), as: .avif, options: EncodeOptions(quality: 0.5))
        // 64 MB of address space is less than a helper has mapped once started: its next large allocation fails.
        let starved = try DecodeHelperPool(configuration: .init(
            executable: CommandLineTool.executable, arguments: ["_decode-helper", "--memory-limit-mb", "64"], size: 1))
        let coders = ImageCoders.isolating([.avif], in: starved, behind: .shared)
        let error = #expect(throws: ImageError.self) { try coders.decode(large) }
        #expect(error?.code == .badImageData || error?.code == .imageTooLarge)
        #expect(starved.busyCount == 0)
        let roomy = try Self.pool(size: 1)
        let decoded = try ImageCoders.isolating([.avif], in: roomy, behind: .shared).decode(large)
        #expect(decoded.size == PixelSize(width: 1920, height: 1080))
    }

    @Test func formatsNotIsolatedAreDecodedInProcess() throws {
        let pool = try Self.pool(size: 1)
        let coders = ImageCoders.isolating([.heic], in: pool, behind: Self.inProcess)
        let tiff = try IsolationFixtures.tiff("gray8")
        #expect(!IsolatedCoder(formats: [.heic], pool: pool).canDecode(tiff))
        #expect(try coders.decode(tiff).pixels.bytes == Self.inProcess.decode(tiff).pixels.bytes)
        #expect(coders.canEncode(to: .png))  // encoding goes to the coders behind
    }
}
