import Foundation
import Testing
@testable import WebImage

/// GIF fed piece by piece: each frame is composited once its data is complete, partial images hold the frames
/// completed so far, and the final image is the GIF coder's.
@Suite struct GIFIncrementalTests {
    static let animations = [
        "dispose-none.gif", "dispose-background.gif", "dispose-previous.gif", "dispose-previous-first.gif",
        "local-palettes.gif", "interlaced.gif", "interlaced-clipped.gif", "frame-outside.gif", "screen-zero.gif",
        "delays.gif", "loop-3.gif", "magick-optimized.gif", "anim-magick.gif", "anim-pillow-40.gif",
        "static-transparent.gif",
    ]

    /// Every frame's pixels, for comparing frame lists.
    static func frameBytes(_ image: Image) -> [[UInt8]] { image.frames.map(\.pixels.bytes) }

    /// Appends `data` in chunks of `chunkSize`, keeping each partial image that has more frames than the last.
    static func feed(_ data: Data, chunkSize: Int, options: DecodeOptions = DecodeOptions()) throws
        -> IncrementalFeeding.Run
    {
        let decoder = IncrementalDecoder(options: options)
        var partials: [(received: Int, image: Image)] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = start + min(chunkSize, data.endIndex - start)
            try decoder.append(data[start..<end])
            start = end
            if start < data.endIndex, let image = decoder.currentImage(),
               image.frames.count > partials.last?.image.frames.count ?? 0 {
                partials.append((start, image))
            }
        }
        return IncrementalFeeding.Run(partials: partials, final: try decoder.finish())
    }

    @Test(arguments: animations, [1, 7, 100, 509, Int.max])
    func finalEqualsTheGIFCodersDecode(_ name: String, chunkSize: Int) throws {
        let data = try Fixtures.data("gif/\(name)")
        let oneShot = try GIFCoder().decode(data, options: DecodeOptions())
        let run = try Self.feed(data, chunkSize: chunkSize)
        #expect(Self.frameBytes(run.final) == Self.frameBytes(oneShot))
        #expect(run.final.frames.map(\.duration) == oneShot.frames.map(\.duration))
        #expect(run.final.loopCount == oneShot.loopCount)
        #expect(run.final.flags == oneShot.flags)
        #expect(run.final.format == .gif)
        // Partial images: the first k frames of the one-shot decode, k growing.
        var previousCount = 0
        for partial in run.partials {
            let count = partial.image.frames.count
            #expect(partial.image.flags.contains(.incremental))
            #expect(count > previousCount && count <= oneShot.frames.count)
            #expect(Self.frameBytes(partial.image) == Array(Self.frameBytes(oneShot).prefix(count)),
                    "\(name) at \(partial.received) bytes")
            previousCount = count
        }
        if chunkSize == 1 {
            // Each frame shows as soon as its last byte arrives; the last one completes with the trailer.
            #expect(run.partials.count == oneShot.frames.count, "one partial image per frame completed")
        }
    }

    /// Where each image record of a GIF ends, found by walking its block structure (a test-side walker over the
    /// format's layout, independent of the decoder).
    static func imageRecordEnds(_ data: [UInt8]) -> [Int] {
        var offset = 13 + (data[10] & 0x80 != 0 ? 3 << (Int(data[10] & 7) + 1) : 0)
        var ends: [Int] = []
        while offset < data.count, data[offset] != 0x3B {
            var block: Int
            if data[offset] == 0x21 {
                block = offset + 2
            } else {
                let flags = data[offset + 9]
                block = offset + 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1
            }
            while data[block] != 0 { block += 1 + Int(data[block]) }
            if data[offset] == 0x2C { ends.append(block + 1) }
            offset = block + 1
        }
        return ends
    }

    @Test(arguments: ["dispose-previous.gif", "local-palettes.gif", "interlaced.gif", "anim-magick.gif",
                      "anim-pillow-40.gif"])
    func cutPointsGiveExactlyTheCompletedFrames(_ name: String) throws {
        let data = try Fixtures.data("gif/\(name)")
        let oneShot = try GIFCoder().decode(data, options: DecodeOptions())
        let ends = Self.imageRecordEnds(Array(data))
        #expect(ends.count == oneShot.frames.count)
        // Just before a frame's last byte, at it, and one past it; then the rest of the file.
        let around: [Int] = ends.flatMap { (end: Int) -> [Int] in [end - 1, end, end + 1] }
        let cuts: [Int] = Set(around.filter { (cut: Int) in cut > 0 && cut < data.count }).sorted()
        for cut in cuts {
            let decoder = IncrementalDecoder(partialImagePolicy: .everyChange)
            try decoder.append(data.prefix(cut))
            let completed = ends.filter { $0 <= cut }.count
            let partial = decoder.currentImage()
            let partialFrames: Int = partial?.frames.count ?? 0
            #expect(partialFrames == completed, "\(name) cut at \(cut)")
            if let partial {
                #expect(partial.flags.contains(.incremental))
                #expect(Self.frameBytes(partial) == Array(Self.frameBytes(oneShot).prefix(completed)))
                // The lenient one-shot decode of the same bytes is the partial-decode reference.
                let lenient = try GIFCoder().decodeCompleteFrames(data.prefix(cut), options: DecodeOptions())
                #expect(Self.frameBytes(lenient.image) == Self.frameBytes(partial))
            }
            #expect(!decoder.isComplete)
            try decoder.append(data.dropFirst(cut))
            #expect(Self.frameBytes(try decoder.finish()) == Self.frameBytes(oneShot))
        }
    }

    @Test func thumbnailsAndFirstFrameOnlyMatchTheCoder() throws {
        let data = try Fixtures.data("gif/anim-magick.gif")
        for options in [DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20)),
                        DecodeOptions(firstFrameOnly: true)] {
            let oneShot = try GIFCoder().decode(data, options: options)
            let run = try Self.feed(data, chunkSize: 100, options: options)
            #expect(Self.frameBytes(run.final) == Self.frameBytes(oneShot))
            #expect(run.final.flags == oneShot.flags)
        }
        // The first frame alone completes the decode, before the rest of the file arrives.
        let ends = Self.imageRecordEnds(Array(data))
        let decoder = IncrementalDecoder(options: DecodeOptions(firstFrameOnly: true))
        try decoder.append(data.prefix(ends[0]))
        #expect(decoder.isComplete)
        #expect(try decoder.finish().frames.count == 1)
    }

    @Test func aCutFileIsRefusedAtTheEndLikeTheCoder() throws {
        let data = try Fixtures.data("gif/dispose-previous.gif")
        let decoder = IncrementalDecoder()
        try decoder.append(data.dropLast())  // everything but the trailer
        #expect(decoder.currentImage()?.frames.count == Self.imageRecordEnds(Array(data)).count)
        #expect(IncrementalFeeding.errorCode { _ = try decoder.finish() } == .badImageData)
        #expect(IncrementalFeeding.errorCode { _ = try GIFCoder().decode(data.dropLast(), options: DecodeOptions()) }
            == .badImageData)
    }

    @Test func aFrameCountBombIsRefusedWhileItStreams() throws {
        let template = try Fixtures.data("gif/bomb-4000-frames.gif")
        // Header and a two-colour table (19 bytes), 4000 equal frame records, the trailer: grown to 100 000 frames.
        let headerLength = 19
        let recordLength = (template.count - headerLength - 1) / 4000
        var bomb = Data(template.prefix(headerLength))
        let record = template[headerLength..<(headerLength + recordLength)]
        for _ in 0..<100_000 { bomb.append(record) }
        bomb.append(0x3B)
        let decoder = IncrementalDecoder()
        var refusedAt: Int?
        var start = bomb.startIndex
        while start < bomb.endIndex, refusedAt == nil {
            let end = min(start + 65_536, bomb.endIndex)
            if let code = IncrementalFeeding.errorCode({ try decoder.append(bomb[start..<end]) }) {
                #expect(code == .imageTooLarge)
                refusedAt = end
            }
            start = end
        }
        // Refused as the 10 001st frame (the default limit) completes, not at the end of the file.
        let limitEnd = headerLength + 10_001 * recordLength
        let refused = try #require(refusedAt)
        #expect(refused >= limitEnd && refused < limitEnd + 65_536)
        #expect(IncrementalFeeding.errorCode { _ = try decoder.finish() } == .imageTooLarge)
    }

    @Test func aLowerFrameLimitShowsFramesUpToItThenRefuses() throws {
        let data = try Fixtures.data("gif/bomb-4000-frames.gif")
        let decoder = IncrementalDecoder(options: DecodeOptions(limits: DecodeLimits(maxFrames: 1000)))
        var largest = 0
        var code: ImageError.Code?
        var start = data.startIndex
        while start < data.endIndex, code == nil {
            let end = min(start + 4096, data.endIndex)
            code = IncrementalFeeding.errorCode { try decoder.append(data[start..<end]) }
            largest = max(largest, decoder.currentImage()?.frames.count ?? 0)
            start = end
        }
        #expect(code == .imageTooLarge)
        #expect(largest > 0 && largest <= 1000)
    }

    @Test func aCanvasBombIsRefusedFromTheHeader() throws {
        let data = try Fixtures.data("gif/bomb-canvas-60000.gif")
        let decoder = IncrementalDecoder()
        #expect(IncrementalFeeding.errorCode { try decoder.append(data.prefix(13)) } == .imageTooLarge)
    }
}
