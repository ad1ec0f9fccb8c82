import Foundation

/// Watches a GIF's bytes as they arrive and says once they hold its whole first frame, when the decode planned for
/// the file reads no other frame (a still made from an animation: the first frame only, or frame 0 asked for).
/// An animated GIF sends its frames one after the other, so a still of it needs only the start of the file: the
/// benchmark's 20-frame GIF ends its first frame at 4.9% of its bytes. It walks blocks and sub-block lengths; it
/// decodes nothing.
///
/// The cut is after the first image's data (its zero-length terminator block); the decoder is given that prefix
/// with a trailer appended, a valid one-frame GIF. Extensions before the first image (the loop count, the first
/// frame's graphic control) are kept. A file that is not a GIF, ends (trailer) or breaks before an image, or
/// whose plan reads more than the first frame, never stops early.
struct GIFPrefixScanner: PrefixScanner {
    private let plan: @Sendable (Data) -> DecodeOptions?
    /// The verdict so far; once it is not ``PrefixVerdict/needsMore`` it no longer changes.
    private var verdict = PrefixVerdict.needsMore
    /// Where the next unread block (or sub-block) starts.
    private var position = 0
    /// Whether ``position`` is inside a run of sub-blocks, and whether they are the first image's data.
    private var inSubBlocks = false
    private var inImageData = false

    /// A scanner for a decode whose options depend on the file: `plan` is given the file's first frame (every
    /// block up to the end of its image data, and a trailer) and returns the options, or `nil` when the file will
    /// not be decoded.
    init(planning plan: @escaping @Sendable (Data) -> DecodeOptions?) {
        self.plan = plan
    }

    /// Reads on from where the last call stopped. `bytes` is everything received so far, from the first byte
    /// (each call's bytes must begin with the previous call's).
    mutating func advance(_ bytes: UnsafeRawBufferPointer) -> PrefixVerdict {
        guard verdict == .needsMore else { return verdict }
        if position == 0 {
            guard bytes.count >= 13 else { return .needsMore }
            guard ImageFormat.detect(bytes: bytes) == .gif else { return finish(.never) }
            position = 13 + Self.colorTableBytes(flags: bytes[10])
        }
        while position < bytes.count {
            if inSubBlocks {
                let size = Int(bytes[position])
                if size == 0 {
                    position += 1
                    inSubBlocks = false
                    if inImageData { return finish(decide(bytes)) }
                    continue
                }
                guard position + 1 + size <= bytes.count else { return .needsMore }
                position += 1 + size
                continue
            }
            switch bytes[position] {
            case 0x21:  // An extension: introducer, label, then sub-blocks.
                guard position + 2 <= bytes.count else { return .needsMore }
                position += 2
                inSubBlocks = true
            case 0x2C:  // An image: descriptor, local colour table, LZW code size, then the data's sub-blocks.
                guard position + 10 <= bytes.count else { return .needsMore }
                let start = position + 10 + Self.colorTableBytes(flags: bytes[position + 9])
                guard start + 1 <= bytes.count else { return .needsMore }
                position = start + 1
                inSubBlocks = true
                inImageData = true
            default:  // The trailer before any image, or damage: the decoder will say what it makes of it.
                return finish(.never)
            }
        }
        return .needsMore
    }

    /// The prefix to decode: the first `length` bytes of `data` and a trailer.
    static func prefix(of data: Data, length: Int) -> Data {
        var prefix = Data(capacity: length + 1)
        prefix.append(data.prefix(length))
        prefix.append(0x3B)
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

    /// The size of the colour table a descriptor's packed flags announce.
    private static func colorTableBytes(flags: UInt8) -> Int {
        flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0
    }
}
