import Foundation
import Testing
@testable import WebImage

/// The format-independent behaviour of ``IncrementalDecoder``: recognising the format, fallbacks, errors.
@Suite struct IncrementalDecoderTests {
    @Test func theFormatIsRecognisedFromTheFirstBytes() throws {
        let png = try Fixtures.data("incremental/photo_rgba.png")
        let decoder = IncrementalDecoder()
        try decoder.append(png.prefix(4))
        #expect(decoder.format == nil)
        try decoder.append(png[4..<8])
        #expect(decoder.format == .png)
        let jpeg = IncrementalDecoder()
        try jpeg.append(try Fixtures.data("incremental/baseline.jpg").prefix(3))
        #expect(jpeg.format == .jpeg)
    }

    @Test func aGivenFormatSkipsRecognition() throws {
        let data = try Fixtures.data("incremental/photo_lossy.webp")
        let decoder = IncrementalDecoder(format: .webp)
        #expect(decoder.format == .webp)
        try decoder.append(data)
        #expect(try decoder.finish().pixels.bytes == (try WebPCoder().decode(data, options: DecodeOptions())).pixels.bytes)
    }

    @Test func completeDataIsFinishedWithoutAskingAndMoreBytesAreIgnored() throws {
        let data = try Fixtures.data("png/rgb8.png")
        let decoder = IncrementalDecoder()
        try decoder.append(data)
        #expect(decoder.isComplete)
        let image = try #require(decoder.currentImage())
        #expect(!image.flags.contains(.incremental))
        try decoder.append(Data([1, 2, 3]))
        #expect(try decoder.finish().pixels.bytes == image.pixels.bytes)
        #expect(decoder.receivedByteCount == data.count)
    }

    @Test func currentImageIsReusedUntilThereIsMoreToShow() throws {
        let data = try Fixtures.data("incremental/progressive.jpg")
        let decoder = IncrementalDecoder(partialImagePolicy: .everyChange)
        var images: [Image] = []
        for start in stride(from: 0, to: data.count - 1, by: 10) {
            try decoder.append(data[start..<min(start + 10, data.count - 1)])
            if let image = decoder.currentImage() { images.append(image) }
        }
        let distinct = Set(images.map { ObjectIdentifier($0.pixels.storage) })
        #expect(images.count > distinct.count * 3, "a new image for every chunk instead of every scan")
        #expect(distinct.count == 9, "one per scan but the last")
    }

    @Test(arguments: ["incremental/baseline.jpg", "incremental/photo_rgba.png", "incremental/photo_lossless.webp"])
    func partialImagesAreSpacedByNewBytesPerPixel(_ path: String) throws {
        let data = try Fixtures.data(path)
        // 128×96 pixels at 1/16 byte each: a new partial image at most every 768 bytes.
        let spaced = try IncrementalFeeding.feed(data, chunkSize: 1, policy: .default)
        let every = try IncrementalFeeding.feed(data, chunkSize: 1, policy: .everyChange)
        let gaps = zip(spaced.partials.dropFirst(), spaced.partials).map { $0.received - $1.received }
        #expect(gaps.allSatisfy { $0 >= 768 }, "gaps \(gaps)")
        #expect(spaced.partials.first?.received == every.partials.first?.received, "the first one comes at once")
        #expect(spaced.partials.count >= 2)
        #expect(spaced.partials.count <= data.count / 768 + 1)
        #expect(every.partials.count >= spaced.partials.count)
        #expect(spaced.final.pixels.bytes == every.final.pixels.bytes)
        let sparse = try IncrementalFeeding.feed(data, chunkSize: 1, policy: .init(newBytesPerPixel: 100))
        #expect(sparse.partials.count == 1)
    }

    @Test func emptyAndUnrecognisedDataAreBadImageData() throws {
        #expect(IncrementalFeeding.errorCode { _ = try IncrementalDecoder().finish() } == .badImageData)
        #expect(IncrementalFeeding.errorCode(decoding: Data("a text file, not a picture at all".utf8)) == .badImageData)
        #expect(IncrementalFeeding.errorCode(decoding: Data([0xFF, 0xD8])) == .badImageData)
    }

    @Test func anErrorStaysAndNothingIsShownAfterIt() throws {
        let decoder = IncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 10)))
        let data = try Fixtures.data("incremental/photo_rgba.png")
        #expect(IncrementalFeeding.errorCode { try decoder.append(data) } == .imageTooLarge)
        #expect(IncrementalFeeding.errorCode { try decoder.append(Data([0])) } == .imageTooLarge)
        #expect(decoder.currentImage() == nil)
        #expect(IncrementalFeeding.errorCode { _ = try decoder.finish() } == .imageTooLarge)
    }

    @Test func formatsWithoutAnIncrementalPathAreDecodedWholeByTheCoders() throws {
        // Animated WebP has no incremental path: it is decoded at the end, by the WebP coder.
        let animation = try Fixtures.data("webp/animated.webp")
        let decoder = IncrementalDecoder()
        for byte in animation.indices {
            try decoder.append(animation[byte...byte])
            #expect(decoder.currentImage() == nil)
        }
        #expect(decoder.format == .webp)
        let oneShot = Result { try ImageCoders.shared.decode(animation) }
        let incremental = Result { try decoder.finish() }
        switch (oneShot, incremental) {
        case let (.success(expected), .success(image)):
            #expect(image.frames.map(\.pixels.bytes) == expected.frames.map(\.pixels.bytes))
            #expect(image.frames.count == 3)
        case let (.failure(expected), .failure(error)):
            #expect((error as? ImageError)?.code == (expected as? ImageError)?.code)
        default: Issue.record("one-shot \(oneShot) but incremental \(incremental)")
        }
    }

    /// Answers for PNG with a solid image, to show a plugin takes a format over.
    private struct SolidPNGCoder: SingleFormatImageCoder {
        let format = ImageFormat.png
        func decode(_ data: Data, options: DecodeOptions) throws -> Image {
            Image(pixels: try PixelBuffer(width: 2, height: 1, filledWith: RGBA(9, 8, 7)), format: .png)
        }
        func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data { Data() }
    }

    @Test func aPluginCoderTakesItsFormatOver() throws {
        let coders = ImageCoders(coders: ImageCoders.builtIn)
        coders.add(SolidPNGCoder())
        let decoder = IncrementalDecoder(coders: coders)
        let data = try Fixtures.data("incremental/photo_rgba.png")
        for start in stride(from: 0, to: data.count, by: 1000) {
            try decoder.append(data[start..<min(start + 1000, data.count)])
            #expect(decoder.currentImage() == nil)
        }
        #expect(try decoder.finish().pixels.bytes == [9, 8, 7, 255, 9, 8, 7, 255])
    }

    @Test func scaleFactorComesFromTheOptions() throws {
        let data = try Fixtures.data("incremental/photo_rgba.png")
        let decoder = IncrementalDecoder(options: DecodeOptions(fileNameHint: "avatar@2x.png"))
        try decoder.append(data.prefix(data.count / 2))
        #expect(decoder.currentImage()?.scale == 2)
        try decoder.append(data.dropFirst(data.count / 2))
        #expect(try decoder.finish().scale == 2)
    }
}
