import Foundation

/// Watches a progressive JPEG's bytes as they arrive and says once the bytes so far hold everything a thumbnail
/// decode needs, so the transfer can end there. It only walks markers and skips entropy-coded data looking for
/// the next marker; it decodes nothing.
///
/// A progressive JPEG sends its DCT coefficients in scans, each a band of coefficients (spectral selection
/// Ss…Se) of some components at some precision (successive approximation: bits above Al). A decode at 1/8 of
/// the DCT scale reads only a few coefficients per block (``JPEGScaledIDCT``), and the first scans of a typical
/// file carry those, so a thumbnail needs a fraction of the file. The rule:
///
/// - The decode scale is the one the JPEG coder would pick for the options (``JPEGScaling``, with the
///   orientation from the EXIF APP1 segment). Only at 1/8 does the early end pay off in quality: measured on a
///   12 MP 4:2:0 progressive photo (libjpeg-turbo defaults, RGB PSNR against the full file's decode at the same
///   scale, both resized to 300 px wide), cutting after the DC scan (4% of the bytes) gives 44.2 dB with the
///   chroma predicted from luma (``JPEGChromaPrediction``; libjpeg's block smoothing on that prefix: 39.7 dB),
///   after the scans that bring both chroma bands at Al=1 too (15.7%) 47.4 dB, which is where a file with
///   hard-edged colour (whose prediction misses) is cut. At 1/4 even every coefficient
///   to within one bit (42.9% of the bytes) gives only 36.7 dB at its own size, so 1/4, 1/2 and full-scale
///   decodes never stop early.
/// - At 1/8 the prefix is enough once, for every component, every coefficient that component's scaled IDCT
///   reads is known to within one bit (Al ≤ 1), except that a 4:2:0 file's chroma may need only its DC: once
///   every DC is in, the prefix is decoded and, if ``JPEGChromaPrediction`` expects to predict the chroma
///   quarters closely for this image, the cut is there. The cut is at the end of the scan that completes this
///   (the first marker after its entropy-coded data; restart markers belong to the data), and the decoder is
///   given that prefix with an end-of-image marker appended. ``JPEGEighthScaleDecoder`` reads it without
///   libjpeg's whole-image coefficient buffer; libjpeg, which decodes it without a warning, is the fallback.
/// - Only progressive Huffman files (SOF2) with 8-bit samples and 1 or 3 components qualify. Anything else
///   (baseline, arithmetic coding, CMYK, a progression libjpeg would warn about, damaged or odd markers, more
///   than ``maximumScans`` scans) never stops early: the caller then reads the whole file as usual.
struct JPEGPrefixScanner: PrefixScanner {
    /// More scans than this and the scanner gives up (real progressive files have about ten; TurboJPEG refuses
    /// floods of hundreds).
    static let maximumScans = 100

    private struct Component {
        let id: UInt8
        let h: Int
        let v: Int
        /// For each zigzag index, the Al of the last scan that carried it; -1 before any.
        var knownBits = [Int](repeating: -1, count: 64)
        /// The zigzag indices the component's scaled IDCT reads.
        var needed: [Int] = []
    }

    private struct Scan {
        let components: [Int]
        let ss: Int
        let se: Int
        let al: Int
    }

    /// The decode options, from the file's bytes up to its first scan's data; `nil` when it will not be decoded.
    private let plan: @Sendable (UnsafeRawBufferPointer) -> DecodeOptions?
    private var position = 0
    private var inEntropyData = false
    private var frameSize: PixelSize?
    private var components: [Component] = []
    private var orientation = Orientation.up
    private var sawEXIF = false
    private var scan: Scan?
    private var scanCount = 0
    /// Whether a 4:2:0 file's chroma may be predicted once every DC is in (checked once, then off).
    private var mayPredictChroma = false
    /// The verdict so far; once it is not ``PrefixVerdict/needsMore`` it no longer changes.
    private(set) var verdict = PrefixVerdict.needsMore
    /// Whether an end-of-image marker after a scan is judged like any other marker: for checking a prefix that
    /// was already cut (which ends with one), rather than watching a file arrive (where it means the file is in).
    var judgesEndOfImage = false

    /// A scanner for a decode with `options`.
    init(options: DecodeOptions) {
        plan = { _ in options }
    }

    /// A scanner for a decode whose options depend on the file: `plan` is given the bytes up to the end of the
    /// first scan header (every marker segment that describes the image) and returns the options, or `nil` when
    /// the file will not be decoded (it is passed on as it is, for one).
    init(planning plan: @escaping @Sendable (UnsafeRawBufferPointer) -> DecodeOptions?) {
        self.plan = plan
    }

    /// Reads on from where the last call stopped. `bytes` is everything received so far, from the first byte
    /// (each call's bytes must begin with the previous call's).
    mutating func advance(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict {
        guard verdict == .needsMore else { return verdict }
        guard bytes.count >= position else { return finish(.never) }
        if position == 0 {
            guard let starts = JPEGSegments.startsImage(bytes) else { return .needsMore }
            guard starts else { return finish(.never) }
            position = 2
        }
        while true {
            let step = inEntropyData ? skipEntropyData(bytes) : readSegment(bytes)
            switch step {
            case .wait: return .needsMore
            case .next: continue
            case .done(let verdict): return finish(verdict)
            }
        }
    }

    /// Whether `prefix`, cut by a scanner (possibly for other options) and closed with an end-of-image marker,
    /// holds all that a decode planned by this scanner reads.
    mutating func isSatisfied(by prefix: UnsafeRawBufferPointer) -> Bool {
        judgesEndOfImage = true
        if case .enough = advance(prefix) { return true }
        return false
    }

    /// The prefix to decode: the first `length` bytes of `data` and an end-of-image marker.
    static func prefix(of data: Data, length: Int) -> Data {
        var prefix = Data(capacity: length + 2)
        prefix.append(data.prefix(length))
        prefix.append(contentsOf: [0xFF, 0xD9])
        return prefix
    }

    private enum Step {
        case wait
        case next
        case done(PrefixVerdict)
    }

    private mutating func finish(_ verdict: PrefixVerdict) -> PrefixVerdict {
        self.verdict = verdict
        return verdict
    }

    // MARK: Markers between scans

    /// Reads the marker segment at `position` (0xFF, fill bytes, marker, length, payload).
    private mutating func readSegment(_ bytes: UnsafeRawBufferPointer) -> Step {
        // libjpeg skips stray bytes between segments with a warning; a file that has them is left alone.
        guard position < bytes.count else { return .wait }
        guard bytes[position] == 0xFF else { return .done(.never) }
        let marker: UInt8, payload: Int, end: Int
        switch JPEGSegments.read(bytes, at: position) {
        case .marker(let segment):
            // No stuffed byte, standalone marker, second SOI or early EOI belongs here.
            guard !JPEGSegments.standsAlone(segment.marker) else { return .done(.never) }
            (marker, payload, end) = (segment.marker, segment.payload.lowerBound, segment.payload.upperBound)
        case .truncated:
            return .wait
        case .badLength:
            return .done(.never)
        }
        let segment = UnsafeRawBufferPointer(rebasing: bytes[payload..<end])
        let outcome: Step
        switch marker {
        case 0xC2: outcome = readFrame(segment)
        case _ where JPEGSegments.startsFrame(marker):
            outcome = .done(.never)  // Another process (baseline, lossless, arithmetic, hierarchical).
        case 0xCC, 0xDC, 0xDE, 0xDF:
            outcome = .done(.never)  // Arithmetic conditioning, DNL, hierarchical markers.
        case 0xE1 where !sawEXIF && segment.starts(with: Array("Exif\0\0".utf8)):
            sawEXIF = true
            orientation = EXIFReader.orientation(in: UnsafeRawBufferPointer(rebasing: segment.dropFirst(6))) ?? .up
            outcome = .next
        case 0xDA: outcome = readScanHeader(segment, header: UnsafeRawBufferPointer(rebasing: bytes[..<end]))
        default: outcome = .next  // Tables, restart interval, application segments, comments.
        }
        position = end
        if case .next = outcome, marker == 0xDA { inEntropyData = true }
        return outcome
    }

    /// SOF2: the frame size and each component's sampling factors.
    private mutating func readFrame(_ segment: UnsafeRawBufferPointer) -> Step {
        guard frameSize == nil, segment.count >= 6, segment[0] == 8 else { return .done(.never) }
        let height = Int(segment[1]) << 8 | Int(segment[2])
        let width = Int(segment[3]) << 8 | Int(segment[4])
        let count = Int(segment[5])
        guard count == 1 || count == 3, segment.count == 6 + 3 * count, width > 0, height > 0 else {
            return .done(.never)
        }
        for index in 0..<count {
            let base = 6 + 3 * index
            let h = Int(segment[base + 1] >> 4), v = Int(segment[base + 1] & 0x0F)
            guard (1...4).contains(h), (1...4).contains(v),
                  !components.contains(where: { $0.id == segment[base] }) else { return .done(.never) }
            components.append(Component(id: segment[base], h: h, v: v))
        }
        frameSize = PixelSize(width: width, height: height)
        return .next
    }

    /// SOS: which components and coefficients the scan carries, checked as libjpeg checks a progression.
    private mutating func readScanHeader(_ segment: UnsafeRawBufferPointer, header: UnsafeRawBufferPointer) -> Step {
        guard let frameSize else { return .done(.never) }
        if scanCount == 0 {
            guard let options = plan(header), decidesAtOneEighth(frameSize, options: options) else {
                return .done(.never)
            }
        }
        scanCount += 1
        guard scanCount <= Self.maximumScans, segment.count >= 1 else { return .done(.never) }
        let count = Int(segment[0])
        guard (1...components.count).contains(count), segment.count == 4 + 2 * count else { return .done(.never) }
        var members: [Int] = []
        for index in 0..<count {
            guard let member = components.firstIndex(where: { $0.id == segment[1 + 2 * index] }),
                  !members.contains(member) else { return .done(.never) }
            members.append(member)
        }
        let ss = Int(segment[1 + 2 * count]), se = Int(segment[2 + 2 * count])
        let ah = Int(segment[3 + 2 * count] >> 4), al = Int(segment[3 + 2 * count] & 0x0F)
        // jdphuff.c: a DC band is Ss = Se = 0; an AC band has one component and Ss ≤ Se ≤ 63; a refinement
        // lowers the precision by exactly one bit; Al ≤ 13.
        let valid = ss == 0 ? se == 0 : (count == 1 && ss <= se && se <= 63)
        guard valid, ah == 0 || al == ah - 1, al <= 13 else { return .done(.never) }
        // What libjpeg warns about (AC before DC, a refinement that does not follow on): refused as damage.
        for member in members {
            let known = components[member].knownBits
            if ss != 0, known[0] < 0 { return .done(.never) }
            for index in ss...se where ah != max(known[index], 0) { return .done(.never) }
        }
        scan = Scan(components: members, ss: ss, se: se, al: al)
        return .next
    }

    /// Whether the decode happens at 1/8 scale; if so, notes which coefficients each component needs.
    private mutating func decidesAtOneEighth(_ frameSize: PixelSize, options: DecodeOptions) -> Bool {
        let target = options.storedTargetSize(for: frameSize, orientation: orientation)
        let factor = JPEGScaling.factor(for: frameSize, target: target)
        guard factor == JPEGScaleFactor(numerator: 1, denominator: 8) else { return false }
        let maxH = components.map(\.h).max() ?? 1, maxV = components.map(\.v).max() ?? 1
        for index in components.indices {
            let size = JPEGScaledIDCT.size(eighths: 1, h: components[index].h, v: components[index].v,
                                           maxH: maxH, maxV: maxV)
            components[index].needed = JPEGScaledIDCT.coefficients(readBy: size)
        }
        mayPredictChroma = JPEGChromaPrediction.applies(toSampling: components.map { ($0.h, $0.v) })
        return true
    }

    // MARK: Entropy-coded data

    /// Skips to the first marker after the scan's data (0xFF followed by anything but a stuffed zero, a restart
    /// marker or a fill byte), then credits the scan and judges the prefix that ends there.
    private mutating func skipEntropyData(_ bytes: UnsafeRawBufferPointer) -> Step {
        guard let base = bytes.baseAddress else { return .wait }
        while position < bytes.count {
            guard let found = memchr(base + position, 0xFF, bytes.count - position) else {
                position = bytes.count
                return .wait
            }
            let index = base.distance(to: UnsafeRawPointer(found))
            guard index + 1 < bytes.count else {
                position = index
                return .wait
            }
            switch bytes[index + 1] {
            case 0x00, 0xD0...0xD7: position = index + 2
            case 0xFF: position = index + 1
            default:
                position = index
                inEntropyData = false
                return endOfScan(markerAt: index, marker: bytes[index + 1], in: bytes)
            }
        }
        return .wait
    }

    private mutating func endOfScan(markerAt index: Int, marker: UInt8, in bytes: UnsafeRawBufferPointer) -> Step {
        guard let scan else { return .done(.never) }
        self.scan = nil
        for member in scan.components {
            for coefficient in scan.ss...scan.se { components[member].knownBits[coefficient] = scan.al }
        }
        // An end-of-image marker here means the whole file is in: nothing left to save.
        guard marker != 0xD9 || judgesEndOfImage else { return .done(.never) }
        let enough = components.allSatisfy { component in
            component.needed.allSatisfy { (0...1).contains(component.knownBits[$0]) }
        }
        if enough { return .done(.enough(length: index)) }
        // 4:2:0 chroma with DC alone: its quarters are predicted, where the file's DC shows they can be.
        if mayPredictChroma, components.allSatisfy({ (0...1).contains($0.knownBits[0]) }) {
            mayPredictChroma = false
            if judgesEndOfImage {
                // A prefix that ends here was cut by a scanner that found the prediction holds (a cut after DC
                // alone on 4:2:0 has no other cause, and the finding depends on these bytes alone); one that goes
                // on was cut later, by the rule above. Neither needs the DC decoded again.
                if marker == 0xD9 { return .done(.enough(length: index)) }
            } else {
                var prefix = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[..<index]))
                prefix += [0xFF, 0xD9]
                // The decode of the prefix cut here (the same bytes) takes this read instead of reading again.
                if let (frame, tables) = prefix.withUnsafeBytes(JPEGEighthScaleDecoder.read),
                   JPEGChromaPrediction.holds(for: frame) {
                    JPEGPrefixReads.keep(frame, tables, readFrom: prefix)
                    return .done(.enough(length: index))
                }
            }
        }
        return .next
    }
}
