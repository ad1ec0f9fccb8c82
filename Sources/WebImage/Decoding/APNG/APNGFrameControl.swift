/// What happens to a frame's rectangle after the frame was shown (the fcTL chunk's `dispose_op`).
enum APNGDisposal: UInt8 {
    /// Leave the canvas as it is.
    case none = 0
    /// Clear the frame's rectangle to transparent black.
    case background = 1
    /// Put back what the rectangle held before the frame was drawn.
    case previous = 2
}

/// How a frame's pixels meet the canvas (the fcTL chunk's `blend_op`).
enum APNGBlend: UInt8 {
    /// Replace the rectangle's pixels, alpha included.
    case source = 0
    /// Composite the frame over the canvas with its alpha.
    case over = 1
}

/// One frame's fcTL chunk: where it is drawn, for how long, and how it is blended and disposed of.
struct APNGFrameControl {
    /// The byte length of an fcTL chunk's data, sequence number included.
    static let byteCount = 26

    /// The sequence number shared by fcTL and fdAT chunks.
    let sequenceNumber: UInt32
    /// Where the frame is drawn; always inside the canvas.
    let rect: PixelRect
    let delayNumerator: Int
    /// As stored; 0 means 100 (the delay is then in hundredths of a second).
    let delayDenominator: Int
    let disposal: APNGDisposal
    let blend: APNGBlend

    /// Reads the fcTL chunk whose data `reader` holds in `range`, checking that its rectangle lies inside
    /// `canvas` and its operations are known.
    init(_ range: Range<Int>, in reader: PNGChunkReader, canvas: PixelSize) throws {
        guard range.count == Self.byteCount else {
            throw ImageError(.badImageData, "APNG: an fcTL chunk has \(range.count) bytes, not \(Self.byteCount)")
        }
        let start = range.lowerBound
        sequenceNumber = reader.uint32(at: start)
        // Each field is below 2^32, so these sums cannot overflow Int.
        let width = Int(reader.uint32(at: start + 4)), height = Int(reader.uint32(at: start + 8))
        let x = Int(reader.uint32(at: start + 12)), y = Int(reader.uint32(at: start + 16))
        guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
            throw ImageError(.badImageData,
                             "APNG: frame \(width)x\(height) at \(x),\(y) does not lie inside the \(canvas) canvas")
        }
        rect = PixelRect(x: x, y: y, width: width, height: height)
        delayNumerator = Int(reader.uint16(at: start + 20))
        delayDenominator = Int(reader.uint16(at: start + 22))
        guard let disposal = APNGDisposal(rawValue: reader.bytes[start + 24]) else {
            throw ImageError(.badImageData, "APNG: unknown dispose_op \(reader.bytes[start + 24])")
        }
        guard let blend = APNGBlend(rawValue: reader.bytes[start + 25]) else {
            throw ImageError(.badImageData, "APNG: unknown blend_op \(reader.bytes[start + 25])")
        }
        self.disposal = disposal
        self.blend = blend
    }

    /// How long the frame is shown: `delay_num / delay_den` seconds (a denominator of 0 means 100), with
    /// ``FrameDuration``'s rule for delays too short to honour.
    var duration: Double {
        FrameDuration.playable(seconds: Double(delayNumerator) / Double(delayDenominator == 0 ? 100 : delayDenominator))
    }
}
