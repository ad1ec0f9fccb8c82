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
        guard let moov = Self.children(of: 0..<bytes.count, in: bytes).first(where: { $0.type == "moov" }) else {
            return nil
        }
        for trak in Self.children(of: moov.payload, in: bytes) where trak.type == "trak" {
            let boxes = Self.children(of: trak.payload, in: bytes)
            if let tref = boxes.first(where: { $0.type == "tref" }),
               Self.children(of: tref.payload, in: bytes).contains(where: { $0.type == "auxl" }) {
                continue
            }
            guard let stts = Self.find(["mdia", "minf", "stbl", "stts"], in: trak.payload, bytes: bytes),
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

    /// Descends through nested boxes by type, returning the payload of the last one.
    private static func find(_ path: [String], in range: Range<Int>, bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        var current = range
        for type in path {
            guard let box = children(of: current, in: bytes).first(where: { $0.type == type }) else { return nil }
            current = box.payload
        }
        return current
    }

    private typealias Box = (type: String, payload: Range<Int>)

    /// The boxes laid end to end in `range`; stops at the first box that does not fit.
    private static func children(of range: Range<Int>, in bytes: UnsafeRawBufferPointer) -> [Box] {
        var result: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(read32(bytes, offset))
            var header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { break }
                let large = UInt64(read32(bytes, offset + 8)) << 32 | UInt64(read32(bytes, offset + 12))
                guard large <= UInt64(range.upperBound - offset) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { break }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append((type, (offset + header)..<(offset + size)))
            offset += size
        }
        return result
    }

    private static func read32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
