import Foundation

/// Lets a transfer end before its body does, once the bytes received hold everything the decode that follows
/// reads. The body then delivered is that prefix, completed so that decoders read it as a whole file, and the
/// response says so (``ImageLoadResponse/isPrefix``): it must never be kept as the resource.
///
/// Three kinds of file stop early. A progressive JPEG (Huffman-coded, gray or three components) whose decode
/// happens at TurboJPEG's 1/8 DCT scale, which is what small thumbnails of large photos get: such a decode reads
/// only a few DCT coefficients per block, and a progressive file sends those first: a 12 MP photo needs its DC
/// scan, about 4% of its bytes, for a 300 px thumbnail (about 16% when its colour has detail that cannot be
/// predicted from its brightness), within 40 dB PSNR of the whole file's thumbnail. And an animated GIF or WebP
/// decoded for its first frame only (``DecodeOptions/firstFrameOnly``): the frames come one after the other, so
/// the transfer ends after the first one, with the same pixels as the whole file's first frame (a WebP whose
/// header announces EXIF or XMP metadata, stored after the frames, is read whole). Every other file, and every
/// other scale, is read whole.
///
/// Loaders that cannot save anything by stopping (files, `data:` URLs) ignore it. Two rules are equal when they
/// were made from equal decode options, or with equal identities: a transfer is shared only by requests whose
/// rules are equal, and it stops for the request that started it (see ``isSatisfied(by:)`` for the others).
package struct EarlyStop: Sendable, Hashable {
    private enum Identity: Hashable {
        case options(DecodeOptions)
        case named(String)
        case header
    }

    private let identity: Identity
    /// The decode options for a file whose header is the argument (see ``init(identity:decodeOptions:)``).
    let plan: @Sendable (Data) -> DecodeOptions?

    /// A rule for bytes that will be decoded with `decodeOptions`; only the size-deciding options (thumbnail
    /// box, aspect ratio, scale-down limit, orientation) change where the transfer can stop.
    package init(decoding decodeOptions: DecodeOptions) {
        identity = .options(decodeOptions)
        plan = { _ in decodeOptions }
    }

    /// A rule for bytes whose decode options depend on the file, as an image server's do (the size a request
    /// needs follows from the source's size). `decodeOptions` is given the file's header: its bytes up to its
    /// first image data (every segment that describes the image), closed with an end-of-image marker so that a
    /// coder's properties reader takes it for a whole file. It returns the options the file will be decoded with,
    /// or `nil` when it will not be decoded (passed on as it is, for one). Rules with equal `identity` must plan
    /// alike.
    package init(identity: String, decodeOptions: @escaping @Sendable (_ header: Data) -> DecodeOptions?) {
        self.identity = .named(identity)
        plan = decodeOptions
    }

    /// A rule for callers that read a file's description (size, format, orientation, metadata, colour profile)
    /// and none of its pixels: a JPEG's transfer ends once its header has arrived (every segment up to the first
    /// scan's header), a few kilobytes of a 12 MP photo. Every other format is read whole. The prefix serves a
    /// properties reader (``ImageCoders/properties(of:)``) and ``ImageMetadata/read(from:)``, never a decode.
    package static let header = EarlyStop(header: ())

    private init(header: Void) {
        identity = .header
        plan = { _ in nil }
    }

    /// Whether this is ``header``.
    var readsHeaderOnly: Bool { identity == .header }

    /// Whether `prefix`, the body of a transfer that stopped early (``ImageLoadResponse/isPrefix``), holds all
    /// that this rule's decode reads. A rule shared under one identity by callers that decode differently (several
    /// thumbnail sizes) stops where the caller that started the transfer is served; another caller checks here
    /// and, when the prefix falls short, loads the whole file.
    package func isSatisfied(by prefix: Data) -> Bool {
        var watch = EarlyStopWatch(self)
        return prefix.withUnsafeBytes { watch.isSatisfied(by: $0) }
    }

    package static func == (lhs: EarlyStop, rhs: EarlyStop) -> Bool { lhs.identity == rhs.identity }

    package func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

/// What the bytes of a transfer so far allow, as a prefix scanner sees them.
enum PrefixVerdict: Equatable {
    /// Not enough yet; feed more.
    case needsMore
    /// The first `length` bytes, closed as the format needs (a JPEG's end-of-image marker, a GIF's trailer),
    /// decode to what the whole file would give, or closely enough.
    case enough(length: Int)
    /// This file will not stop early: read it whole.
    case never

    /// The verdict of an animation's scanner once its first frame ends at `length`: enough when the decode
    /// `options` plan reads that frame alone (the first frame only, or frame 0 asked for), never otherwise.
    static func firstFrame(endingAt length: Int, options: DecodeOptions?) -> PrefixVerdict {
        guard let options, options.firstFrameOnly, (options.frameIndex ?? 0) == 0 else { return .never }
        return .enough(length: length)
    }
}

/// A format's early-stop scanner: it watches a file's bytes arrive and says once they hold what a decode reads.
protocol PrefixScanner: Sendable {
    /// Reads on from where the last call stopped. `bytes` is everything received so far, from the first byte
    /// (each call's bytes must begin with the previous call's).
    mutating func advance(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict
    /// Whether `prefix`, already cut by a scanner of the format (possibly for another plan) and closed, holds all
    /// that this scanner's decode reads.
    mutating func isSatisfied(by prefix: UnsafeRawBufferPointer) -> Bool
    /// The prefix to decode: the first `length` bytes of `data`, closed as the format needs.
    static func prefix(of data: Data, length: Int) -> Data
}

extension PrefixScanner {
    /// A prefix holds what this scanner's decode reads when watching it arrive would have said so.
    mutating func isSatisfied(by prefix: UnsafeRawBufferPointer) -> Bool {
        if case .enough = advance(prefix) { return true }
        return false
    }
}

/// Follows a body as it grows and says when it is enough for an ``EarlyStop``: the file's format, from its first
/// bytes, chooses the scanner (a JPEG's, a GIF's or a WebP's); any other file is read whole.
struct EarlyStopWatch {
    private let rule: EarlyStop
    /// `nil` until the first bytes name a format that has a scanner.
    private var scanner: (any PrefixScanner)?
    private var gaveUp = false

    init(_ rule: EarlyStop) {
        self.rule = rule
    }

    /// Whether this body is known to be read whole: its format has no scanner, or the scanner said never.
    var readsWhole: Bool { gaveUp }

    /// The body to deliver instead of reading on, once `body` (everything received so far) is enough; `nil`
    /// while it is not, or when this body will never stop early.
    mutating func sufficientPrefix(of body: Data) -> Data? {
        guard !gaveUp else { return nil }
        switch body.withUnsafeBytes({ advance($0) }) {
        case .needsMore:
            return nil
        case .never:
            gaveUp = true
            return nil
        case .enough(let length):
            gaveUp = true
            return scanner.map { type(of: $0).prefix(of: body, length: length) }
        }
    }

    /// Whether `prefix`, the body of a transfer that stopped early, holds all that the rule's decode reads.
    mutating func isSatisfied(by prefix: UnsafeRawBufferPointer) -> Bool {
        chooseScanner(prefix)
        return scanner?.isSatisfied(by: prefix) ?? false
    }

    private mutating func advance(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict {
        chooseScanner(bytes)
        // Twelve bytes tell every format apart that has a scanner (a WebP's RIFF header is the longest).
        guard scanner != nil else { return bytes.count < 12 ? .needsMore : .never }
        return scanner!.advance(bytes)
    }

    /// Picks the scanner from the first bytes once they name a format that has one.
    private mutating func chooseScanner(_ bytes: UnsafeRawBufferPointer) {
        guard scanner == nil else { return }
        let rule = self.rule
        let format = ImageFormat.detect(bytes: bytes)
        if rule.readsHeaderOnly {
            if format == .jpeg { scanner = JPEGHeaderScanner() }
            return
        }
        switch format {
        case .jpeg:
            scanner = JPEGPrefixScanner(planning: { header in
                var closed = Data(header)
                closed.append(contentsOf: [0xFF, 0xD9])
                return rule.plan(closed)
            })
        case .gif:
            scanner = GIFPrefixScanner(planning: { rule.plan($0) })
        case .webp:
            scanner = WebPPrefixScanner(planning: { rule.plan($0) })
        default:
            break
        }
    }
}
