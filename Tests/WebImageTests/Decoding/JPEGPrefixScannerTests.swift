import Foundation
import Testing
@testable import WebImage

@Suite struct JPEGPrefixScannerTests {
    /// 1000×750 into 100×75: TurboJPEG's 1/8 scale (125×94) is the smallest that covers it.
    static let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 75))

    /// Feeds `data` in chunks of `chunk` bytes, as a transfer would, and returns the first verdict that is not
    /// "needs more" (or the last one).
    static func verdict(_ data: Data, options: DecodeOptions = thumbnail, chunk: Int = 997)
        -> PrefixVerdict {
        var scanner = JPEGPrefixScanner(options: options)
        var end = 0
        var verdict = PrefixVerdict.needsMore
        while end < data.count, verdict == .needsMore {
            end = min(data.count, end + chunk)
            verdict = data.prefix(end).withUnsafeBytes { scanner.advance($0) }
        }
        return verdict
    }

    /// `data` cut where the scanner stops it for `options`, closed with an end-of-image marker; `nil` (and an issue
    /// recorded) when it does not stop early.
    static func earlyStopPrefix(_ data: Data, options: DecodeOptions = thumbnail) -> Data? {
        guard case .enough(let length) = verdict(data, options: options) else {
            Issue.record("no early stop")
            return nil
        }
        return JPEGPrefixScanner.prefix(of: data, length: length)
    }

    /// The end offsets of each scan's entropy-coded data, found the slow and obvious way.
    static func scanEnds(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var ends: [Int] = []
        var index = 2
        var inScan = false
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] != 0, bytes[index + 1] != 0xFF,
               !(0xD0...0xD7).contains(bytes[index + 1]) {
                if inScan { ends.append(index) }
                inScan = false
                if bytes[index + 1] == 0xD9 { break }
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                inScan = bytes[index + 1] == 0xDA
                index += 2 + length
            } else {
                index += 1
            }
        }
        return ends
    }

    /// RGB PSNR of the prefix's decode against the whole file's, both with `options`.
    static func psnrOfPrefix(_ data: Data, length: Int, options: DecodeOptions = thumbnail) throws -> Double {
        let whole = try JPEGCoder().decode(data, options: options)
        let partial = try JPEGCoder().decode(JPEGPrefixScanner.prefix(of: data, length: length), options: options)
        #expect(partial.size == whole.size)
        return PixelComparison.psnr(partial.pixels.bytes, whole.pixels.bytes)
    }

    @Test(arguments: [
        // 4:2:0: the chroma blocks' 2×2 IDCT reads AC too. On this photo (colour detail at the block size) the
        // prediction from DC would miss, so the cut waits for both chroma bands (scan 4)...
        ("progressive-photo.jpg", 4),
        // ...on a scene whose colour follows its brightness, chroma is predicted from DC: the DC scan is enough.
        ("progressive-soft.jpg", 1),
        // 4:4:4 and grayscale: every block uses a 1×1 IDCT, DC at Al=1 is enough (scan 1).
        ("progressive-photo-444.jpg", 1),
        ("progressive-photo-gray.jpg", 1),
        // DC at full precision first; the chroma bands come whole in scans 3 and 4.
        ("progressive-photo-dc-al0.jpg", 4),
    ])
    func stopsAfterTheScanThatCompletesWhatTheScaledIDCTReads(name: String, scan: Int) throws {
        let data = try Fixtures.data("prefix/" + name)
        let ends = Self.scanEnds(data)
        #expect(Self.verdict(data) == .enough(length: ends[scan - 1]))
        // Byte by byte and all at once agree with chunked arrival; the verdict comes with the marker's second
        // byte, not before.
        #expect(Self.verdict(data, chunk: data.count) == .enough(length: ends[scan - 1]))
        #expect(Self.verdict(data.prefix(ends[scan - 1] + 2), chunk: 1) == .enough(length: ends[scan - 1]))
        #expect(Self.verdict(data.prefix(ends[scan - 1] + 1), chunk: 1) == .needsMore)
    }

    @Test(arguments: ["progressive-photo.jpg", "progressive-photo-444.jpg", "progressive-photo-gray.jpg",
                      "progressive-photo-dc-al0.jpg", "progressive-soft.jpg"])
    func thePrefixDecodesWithinFortyDecibelsOfTheWholeFile(name: String) throws {
        let data = try Fixtures.data("prefix/" + name)
        guard case .enough(let length) = Self.verdict(data) else {
            Issue.record("no early stop for \(name)")
            return
        }
        #expect(length < data.count * 6 / 10)
        #expect(try Self.psnrOfPrefix(data, length: length) >= 40)
    }

    @Test func aCutPrefixSatisfiesOtherEighthScaleDecodesOnly() throws {
        // A transfer shared by several thumbnail sizes stops for the first; the others check the prefix.
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        guard let prefix = Self.earlyStopPrefix(data) else { return }
        let satisfied = { (box: PixelSize) -> Bool in
            EarlyStop(decoding: DecodeOptions(thumbnailPixelSize: box)).isSatisfied(by: prefix)
        }
        #expect(satisfied(PixelSize(width: 120, height: 90)))
        #expect(satisfied(PixelSize(width: 50, height: 50)))
        #expect(!satisfied(PixelSize(width: 200, height: 150)))  // 1/4
        #expect(!satisfied(PixelSize(width: 1000, height: 750)))  // full size
        // Cut one scan earlier (no Cb band yet), it satisfies nobody.
        let early = JPEGPrefixScanner.prefix(of: data, length: Self.scanEnds(data)[2])
        #expect(!EarlyStop(decoding: Self.thumbnail).isSatisfied(by: early))
    }

    @Test func theCutBeforeChromaArrivesIsBelowTheBarWhereThePredictionIsRefused() throws {
        // Why the photo's download waits for its chroma bands: its DC scan's prefix, chroma predicted, falls
        // below the bar that the chosen cut clears.
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        let ends = Self.scanEnds(data)
        #expect(try Self.psnrOfPrefix(data, length: ends[0]) < 40)
        #expect(try Self.psnrOfPrefix(data, length: ends[3]) >= 40)
    }

    @Test func thePredictionsOwnEstimateDecidesTheCut() throws {
        // The estimate (the prediction tried one scale up) is read from the DC scan alone: it refuses the
        // photo's colour detail and accepts the soft scene.
        let expected = { (name: String) throws -> Bool in
            let data = try Fixtures.data("prefix/" + name)
            let prefix = JPEGPrefixScanner.prefix(of: data, length: Self.scanEnds(data)[0])
            let read = prefix.withUnsafeBytes(JPEGEighthScaleDecoder.read)
            return read.map { JPEGChromaPrediction.holds(for: $0.0) } ?? false
        }
        #expect(try !expected("progressive-photo.jpg"))
        #expect(try expected("progressive-soft.jpg"))
        // 4:4:4 has no predicted chroma (every component reads DC alone at 1/8), so the question does not arise.
        #expect(try !expected("progressive-photo-444.jpg"))
    }

    @Test func aPrefixCutAfterDCSatisfiesOtherEighthScaleDecodesOnly() throws {
        // The soft scene's cut after its DC scan (chroma predicted) serves another 1/8 thumbnail, not a 1/4 one.
        // (The check trusts that a prefix ending after DC was cut by a scanner that found the prediction holds:
        // the photo's scanner never cuts there, `stopsAfterTheScanThatCompletesWhatTheScaledIDCTReads`.)
        let soft = try Fixtures.data("prefix/progressive-soft.jpg")
        let softPrefix = try #require(Self.earlyStopPrefix(soft))
        #expect(softPrefix.count == Self.scanEnds(soft)[0] + 2)
        #expect(EarlyStop(decoding: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)))
            .isSatisfied(by: softPrefix))
        #expect(!EarlyStop(decoding: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 150)))
            .isSatisfied(by: softPrefix))
    }

    @Test func largerScalesAndFullSizeNeverStopEarly() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        // 1/4 (250×188 covers 200×150), 1/2, full size, and a scale-down limit that needs full size.
        for options in [DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 150)),
                        DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 300)),
                        DecodeOptions(), DecodeOptions(scaleDownLimitBytes: 1000 * 750 * 4)] {
            #expect(Self.verdict(data, options: options) == .never)
        }
    }

    @Test func theEXIFOrientationDecidesTheScale() throws {
        // 128×96 stored, EXIF orientation 6: shown as 96×128. A 13×100 box asks for 13×17 shown, 17×13 stored,
        // which 1/8 (16×12) does not cover: the coder decodes at 1/4, so no early stop. Read without the turn,
        // the same box would ask for 13×10, which 1/8 covers. A 12×16 box is 1/8 with the turn.
        let data = try Fixtures.data("incremental/progressive_exif6.jpg")
        #expect(Self.verdict(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 13, height: 100)),
                             chunk: 64) == .never)
        let verdict = Self.verdict(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 12, height: 16)),
                                   chunk: 64)
        guard case .enough = verdict else {
            Issue.record("expected an early stop, got \(verdict)")
            return
        }
    }

    @Test func baselineAndOtherProcessesNeverStopEarly() throws {
        for name in ["jpeg/baseline.jpg", "jpeg/cmyk.jpg", "jpeg/grayscale.jpg", "jpeg/restart.jpg"] {
            #expect(Self.verdict(try Fixtures.data(name), options: DecodeOptions(
                thumbnailPixelSize: PixelSize(width: 4, height: 4))) == .never, "\(name)")
        }
        #expect(Self.verdict(Data("not a jpeg at all".utf8)) == .never)
        #expect(Self.verdict(Data([0xFF, 0xD8])) == .needsMore)
    }

    // MARK: Malformed input: never a crash, never "enough" wrongly

    /// Replaces the byte at `offset`.
    static func patched(_ data: Data, at offset: Int, to byte: UInt8) -> Data {
        var copy = data
        copy[copy.startIndex + offset] = byte
        return copy
    }

    /// The offset of the first `FF marker` at or after `from`.
    static func offset(of marker: UInt8, in data: Data, from: Int = 0) -> Int? {
        let bytes = [UInt8](data)
        return (from..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker }
    }

    @Test func truncatedFilesWaitAndNeverClaimEnough() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        let cut = Self.scanEnds(data)[3]
        for length in [1, 2, 3, 4, 20, 100, 300, 600, 1000, cut / 2, cut - 1, cut] {
            #expect(Self.verdict(data.prefix(length), chunk: 7) == .needsMore, "cut at \(length)")
        }
    }

    @Test func damagedMarkersAndProgressionsNeverStopEarly() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        let sof = try #require(Self.offset(of: 0xC2, in: data))
        let sos = try #require(Self.offset(of: 0xDA, in: data))
        var cases: [(String, Data)] = [
            ("a segment length past the end", Self.patched(Self.patched(data, at: sof + 2, to: 0xFF), at: sof + 3,
                                                             to: 0xFF)),
            ("a segment length below 2", Self.patched(Self.patched(data, at: sof + 2, to: 0), at: sof + 3, to: 1)),
            ("12-bit samples", Self.patched(data, at: sof + 4, to: 12)),
            ("two components", Self.patched(data, at: sof + 9, to: 2)),
            ("a baseline frame", Self.patched(data, at: sof + 1, to: 0xC0)),
            ("an arithmetic frame", Self.patched(data, at: sof + 1, to: 0xCA)),
            ("a scan of an unknown component", Self.patched(data, at: sos + 5, to: 9)),
            ("AC in the first scan", Self.patched(data, at: sos + 5 + 2 * 3, to: 1)),
            ("a refinement first", Self.patched(data, at: sos + 5 + 2 * 3 + 2, to: 0x21)),
            ("stray bytes before the frame", Self.patched(data, at: sof, to: 0x00)),
        ]
        // Scan headers of the file with Al of the chroma bands raised to 2: never within one bit.
        var coarse = data
        var from = sos + 1
        while let next = Self.offset(of: 0xDA, in: coarse, from: from) {
            let count = Int(coarse[next + 4])
            let successive = next + 5 + 2 * count + 2
            if count == 1, coarse[next + 5 + 2 * count] == 1, coarse[successive] == 0x01 {
                coarse[successive] = 0x02
            }
            from = next + 1
        }
        cases.append(("chroma AC only to within two bits", coarse))
        for (label, damaged) in cases {
            let verdict = Self.verdict(damaged)
            if case .enough = verdict { Issue.record("\(label): claimed enough") }
        }
    }

    @Test func aFloodOfScansGivesUp() throws {
        // A valid but endless progression: DC at Al=13 (never enough), then each AC coefficient alone, refined
        // one bit at a time (756 scans, one byte of entropy data each). The scanner stops at its limit.
        let data = try Fixtures.data("prefix/progressive-photo-gray.jpg")
        let sos = try #require(Self.offset(of: 0xDA, in: data))
        func scan(_ ss: UInt8, _ se: UInt8, ah: UInt8, al: UInt8) -> [UInt8] {
            [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, ss, se, ah << 4 | al, 0x00]
        }
        var flood = data.prefix(sos)
        flood.append(contentsOf: scan(0, 0, ah: 0, al: 13))
        for coefficient in UInt8(1)...63 {
            for al in stride(from: UInt8(13), through: 2, by: -1) {
                flood.append(contentsOf: scan(coefficient, coefficient, ah: al == 13 ? 0 : al + 1, al: al))
            }
        }
        #expect(Self.verdict(flood) == .never)
        #expect(Self.verdict(flood.prefix(sos + 11 * 50)) == .needsMore)
        // Entropy data of nothing but fill bytes waits for a marker, fed in small pieces.
        var fill = data.prefix(sos)
        fill.append(contentsOf: scan(0, 0, ah: 0, al: 1).dropLast())
        fill.append(Data(repeating: 0xFF, count: 5000))
        #expect(Self.verdict(fill, chunk: 13) == .needsMore)
    }

    @Test func randomGarbageAfterTheHeaderNeverCrashes() throws {
        let data = try Fixtures.data("prefix/progressive-photo.jpg")
        let sos = try #require(Self.offset(of: 0xDA, in: data))
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            var damaged = data.prefix(Self.scanEnds(data)[4])
            for _ in 0..<8 {
                let offset = Int.random(in: 2..<damaged.count, using: &generator)
                damaged[offset] = UInt8.random(in: 0...255, using: &generator)
            }
            // Whatever the verdict, a claimed prefix lies inside the data and ends at a marker.
            if case .enough(let length) = Self.verdict(damaged, chunk: 500 + round) {
                #expect(length <= damaged.count - 2 && length > sos)
                #expect(damaged[length] == 0xFF)
            }
        }
    }
}
