import WebImage

/// The time-to-sample table (`stts`) of an AVIF sequence's colour track, read from the boxes directly.
///
/// libavif 0.11 answers `avifDecoderNthImageTiming(i)` by summing the durations of every frame before `i`,
/// each found by walking the table from its start: reading all durations through it costs frames² × entries,
/// minutes for a few thousand frames that each have an entry. Reading the table once is linear.
struct AVIFTimeToSample {
    /// (frames, duration in media timescale units) runs, in order.
    let runs: [(count: UInt32, delta: UInt32)]

    /// The frame durations in timescale units, with libavif's rules: frames past the table take the last
    /// run's duration, and a track without a table gives 1.
    func deltas(frameCount: Int) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(frameCount)
        for run in runs where result.count < frameCount {
            let count = min(Int(run.count), frameCount - result.count)
            result.append(contentsOf: repeatElement(UInt64(run.delta), count: count))
        }
        let fill = runs.last.map { UInt64($0.delta) } ?? 1
        result.append(contentsOf: repeatElement(fill, count: frameCount - result.count))
        return result
    }

    /// The table of the first track that is not an auxiliary (alpha) track, as libavif picks its colour track;
    /// `nil` when the boxes cannot be walked to one.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard let moov = ISOBMFFBoxes.boxes(in: bytes).first(where: { $0.type == "moov" }) else {
            return nil
        }
        for trak in ISOBMFFBoxes.boxes(in: bytes, range: moov.payload) where trak.type == "trak" {
            let boxes = ISOBMFFBoxes.boxes(in: bytes, range: trak.payload)
            if let tref = boxes.first(where: { $0.type == "tref" }),
               ISOBMFFBoxes.boxes(in: bytes, range: tref.payload).contains(where: { $0.type == "auxl" }) {
                continue
            }
            guard let stts = ISOBMFFBoxes.payload(at: ["mdia", "minf", "stbl", "stts"], in: trak.payload, of: bytes),
                  stts.count >= 8 else { continue }
            let declared = Int(Self.read32(bytes, stts.lowerBound + 4))
            let available = (stts.count - 8) / 8
            runs = (0..<min(declared, available)).map { index in
                let offset = stts.lowerBound + 8 + index * 8
                return (Self.read32(bytes, offset), Self.read32(bytes, offset + 4))
            }
            return
        }
        return nil
    }

    private static func read32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
