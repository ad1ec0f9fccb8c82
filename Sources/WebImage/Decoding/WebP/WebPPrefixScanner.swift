import Foundation

/// Watches an animated WebP's bytes as they arrive and says once they hold its whole first frame, when the decode
/// planned for the file reads no other frame (a still made from an animation: the first frame only, or frame 0
/// asked for). An animated WebP stores its frames one after the other in `ANMF` chunks, so a still of it needs
/// only the start of the file. It walks the RIFF chunks; it decodes nothing.
///
/// The cut is after the first `ANMF` chunk; the decoder is given that prefix with the RIFF size rewritten to
/// match, a valid one-frame animation whose frame has the same pixels as the whole file's first (each frame is
/// drawn on the canvas the frames before it left, and the first on an empty one). Everything before it (the
/// `VP8X` header, the `ICCP` profile, the `ANIM` loop count and background) is kept. Files that never stop early:
/// still WebPs (one image chunk, nothing to skip), extended files without the animation flag, animations whose
/// header announces `EXIF` or `XMP ` metadata (stored after the frames, and the EXIF orientation turns the
/// frame), anything that ends or breaks before a frame, and any file whose plan reads more than the first frame.
struct WebPPrefixScanner: PrefixScanner {
    private let plan: @Sendable (Data) -> DecodeOptions?
    /// The verdict so far; once it is not ``PrefixVerdict/needsMore`` it no longer changes.
    private var verdict = PrefixVerdict.needsMore
    /// Where the next unread chunk starts; 0 before the RIFF and `VP8X` headers are read.
    private var position = 0

    /// The file header (12 bytes) and the `VP8X` chunk (8 + 10): what tells an animation apart.
    private static let headersSize = 30
    /// `VP8X` flag bits.
    private static let animationFlag: UInt8 = 0x02, xmpFlag: UInt8 = 0x04, exifFlag: UInt8 = 0x08

    /// A scanner for a decode whose options depend on the file: `plan` is given the file's first frame (every
    /// chunk up to the end of the first `ANMF`, closed as ``prefix(of:length:)`` closes it) and returns the
    /// options, or `nil` when the file will not be decoded.
    init(planning plan: @escaping @Sendable (Data) -> DecodeOptions?) {
        self.plan = plan
    }

    /// Reads on from where the last call stopped. `bytes` is everything received so far, from the first byte
    /// (each call's bytes must begin with the previous call's).
    mutating func advance(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict {
        guard verdict == .needsMore else { return verdict }
        if position == 0 {
            guard bytes.count >= 12 else { return .needsMore }
            guard ImageFormat.detect(bytes: bytes) == .webp else { return finish(.never) }
            guard bytes.count >= Self.headersSize else { return .needsMore }
            guard WebPChunkHeader(bytes, at: 12)?.type == "VP8X" else { return finish(.never) }
            let flags = bytes[20]
            guard flags & Self.animationFlag != 0, flags & (Self.exifFlag | Self.xmpFlag) == 0 else {
                return finish(.never)
            }
            position = Self.headersSize
        }
        while let chunk = WebPChunkHeader(bytes, at: position) {
            guard chunk.next <= bytes.count else { return .needsMore }
            position = chunk.next
            if chunk.type == "ANMF" { return finish(decide(bytes)) }
        }
        return .needsMore
    }

    /// The prefix to decode: the first `length` bytes of `data`, the RIFF size saying that is the whole file.
    static func prefix(of data: Data, length: Int) -> Data {
        var prefix = Data(data.prefix(length))
        let size = UInt32(truncatingIfNeeded: length - 8)
        let start = prefix.startIndex
        for index in 0..<4 { prefix[start + 4 + index] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(index))) }
        return prefix
    }

    /// The verdict once the first frame is in: enough when the plan decodes that frame alone.
    private func decide(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict {
        .firstFrame(endingAt: position, options: plan(Self.prefix(of: Data(bytes[..<position]), length: position)))
    }

    private mutating func finish(_ verdict: PrefixVerdict) -> PrefixVerdict {
        self.verdict = verdict
        return verdict
    }
}
