import Foundation
import WebImage

/// Incremental decoding of 12 MP JPEGs fed in 16 KB chunks, a partial image asked for after every chunk, beside
/// one-shot decodes of the same files (issue 3's target: total ≤ 2× one-shot).
///
/// Times are the thread's CPU time (medians), not wall time: the machine this runs on is shared, and CPU time is
/// what the target is about.
enum IncrementalSuite {
    static let chunkSize = 16 << 10

    /// The row whose time the report divides the others by (report.py's ratio column: one-shot ÷ incremental,
    /// so the ≤ 2× target reads as a ratio of at least 0.5).
    static let ours = "swift-web-image"

    static func run(data folder: URL) throws {
        var scratch: [UInt8] = []
        for (label, file) in [("12 MP progressive JPEG", "photo-12mp-progressive.jpg"), ("12 MP JPEG", "photo-12mp.jpg")] {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let name = "\(label) in 16 KB chunks, currentImage() after each"
            var partials: [String: Int] = [:]
            var cases: [(String, () throws -> Void)] = [
                (ours, { partials[ours] = try feed(data, policy: .default) }),
                ("everyChange", { partials["everyChange"] = try feed(data, policy: .everyChange) }),
                ("swift-web-image, no partial images asked for", { _ = try feed(data, policy: nil) }),
                ("one-shot TurboJPEG (C library, buffer reused)", { DirectDecoders.turboJPEG(data, into: &scratch) }),
            ]
            if (try? ImageCoders.shared.decode(data)) != nil {
                cases.append(("one-shot ImageCoders.decode", { _ = try ImageCoders.shared.decode(data) }))
            }
            // Interleaved rounds, so that load from other processes on a shared machine falls on every case alike.
            let times = try interleavedCPUMedians(cases.map(\.1))
            for ((implementation, _), time) in zip(cases, times) {
                let shown = implementation == "everyChange"
                    ? "swift-web-image, policy everyChange (\(partials["everyChange"] ?? 0) partial images)" : implementation
                emit(name, shown, time)
            }
            emit("\(label): partial images made", "policy default", Double(partials[ours] ?? 0), unit: "images")
            try appendCostByPosition(label, data)
        }
        try runGIF(data: folder)
    }

    /// An animated GIF fed in 16 KB chunks, the frames so far asked for after each (each frame is composited once,
    /// when its last byte arrives), beside the GIF coder's one-shot decode.
    private static func runGIF(data folder: URL) throws {
        let data = try Data(contentsOf: folder.appendingPathComponent("pan-640x480-20.gif"))
        let times = try interleavedCPUMedians([
            { _ = try feed(data, policy: .default) },
            { _ = try ImageCoders.shared.decode(data) },
        ])
        let name = "GIF 640x480, 20 frames, in 16 KB chunks, currentImage() after each"
        emit(name, ours, times[0])
        emit(name, "one-shot ImageCoders.decode", times[1])
        try appendCostByPosition("GIF 640x480, 20 frames", data)
    }

    /// Feeds `data` in chunks, asking for a partial image after each unless `policy` is `nil`; returns how many
    /// distinct partial images were made.
    private static func feed(_ data: Data, policy: IncrementalDecoder.PartialImagePolicy?) throws -> Int {
        let decoder = IncrementalDecoder(partialImagePolicy: policy ?? .default)
        var start = data.startIndex
        var last: Image?
        var partials = 0
        while start < data.endIndex {
            let end = min(start + chunkSize, data.endIndex)
            try decoder.append(data[start..<end])
            start = end
            if policy != nil, let image = decoder.currentImage(), image.flags.contains(.incremental) {
                if !same(last, image) { partials += 1 }
                last = image
            }
        }
        _ = try decoder.finish()
        return partials
    }

    private static func same(_ a: Image?, _ b: Image) -> Bool {
        guard let a else { return false }
        return a.pixels.withUnsafeBytes { x in b.pixels.withUnsafeBytes { y in x.baseAddress == y.baseAddress } }
    }

    /// Mean time of one append (no partial images) in the first and the last tenth of the file: equal when the
    /// work per chunk does not grow with the bytes already received.
    private static func appendCostByPosition(_ name: String, _ data: Data) throws {
        var samples: [[Double]] = []
        for _ in 0..<5 {
            let decoder = IncrementalDecoder()
            var times: [Double] = []
            var start = data.startIndex
            while start < data.endIndex {
                let end = min(start + chunkSize, data.endIndex)
                let before = cpuNanoseconds()
                try decoder.append(data[start..<end])
                times.append(Double(cpuNanoseconds() - before) / 1e6)
                start = end
            }
            samples.append(times)
        }
        let count = samples[0].count
        func mean(_ range: Range<Int>) -> Double {
            let values = samples.flatMap { $0[range] }
            return values.reduce(0, +) / Double(values.count)
        }
        // The last chunk carries the end-of-image work (the final output pass); leave it out.
        let row = "\(name): one 16 KB append (no partial images)"
        emit(row, "mean over the first tenth of the file", mean(0..<count / 10))
        emit(row, "mean over the last tenth (but the final chunk)", mean(count * 9 / 10..<count - 1))
    }

    /// The median CPU time of each body in milliseconds, running them in turn for at least 7 rounds and 3 s,
    /// after one warm-up round.
    private static func interleavedCPUMedians(_ bodies: [() throws -> Void]) throws -> [Double] {
        for body in bodies { try body() }
        var samples = [[Double]](repeating: [], count: bodies.count)
        let start = DispatchTime.now().uptimeNanoseconds
        while samples[0].count < 7 || DispatchTime.now().uptimeNanoseconds - start < 3_000_000_000 {
            for (index, body) in bodies.enumerated() {
                let before = cpuNanoseconds()
                try body()
                samples[index].append(Double(cpuNanoseconds() - before) / 1e6)
            }
        }
        return samples.map { $0.sorted()[$0.count / 2] }
    }

    private static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func emit(_ name: String, _ implementation: String, _ value: Double, unit: String = "ms") {
        Measurement(suite: "incremental", name: name, implementation: implementation, value: value, unit: unit).emit()
    }
}
