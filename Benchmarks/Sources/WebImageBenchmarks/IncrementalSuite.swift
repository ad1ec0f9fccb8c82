import Foundation
import WebImage

/// Incremental decoding of 12 MP JPEGs fed in 16 KB chunks, a partial image asked for after every chunk, beside
/// one-shot decodes of the same files (issue 3's target: total ≤ 2× one-shot).
///
/// Times are the thread's CPU time (medians), not wall time: the machine this runs on is shared, and CPU time is
/// what the target is about.
enum IncrementalSuite {
    static let chunkSize = 16 << 10

    static func run(data folder: URL) throws {
        var scratch: [UInt8] = []
        for (name, file) in [("12 MP progressive JPEG", "photo-12mp-progressive.jpg"), ("12 MP JPEG", "photo-12mp.jpg")] {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let oneShot = cpuMedian { DirectDecoders.turboJPEG(data, into: &scratch) }
            emit(name, "one-shot, TurboJPEG", oneShot)
            if (try? ImageCoders.shared.decode(data)) != nil {
                let coder = try cpuMedian { _ = try ImageCoders.shared.decode(data) }
                emit(name, "one-shot, ImageCoders", coder)
            }
            for (label, policy) in [("default policy", IncrementalDecoder.PartialImagePolicy.default),
                                    ("every change", .everyChange)] {
                var partials = 0
                let everyChunk = try cpuMedian { partials = try feed(data, policy: policy) }
                emit(name, "incremental, currentImage() after each chunk, \(label) (\(partials) partial images)",
                     everyChunk)
                emit(name, "ratio to one-shot TurboJPEG, \(label)", everyChunk / oneShot, unit: "x")
            }
            let appendOnly = try cpuMedian { _ = try feed(data, policy: nil) }
            emit(name, "incremental, no partial images", appendOnly)
            try appendCostByPosition(name, data)
        }
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
        emit(name, "mean append, first tenth of the chunks", mean(0..<count / 10))
        emit(name, "mean append, last tenth of the chunks (without the final chunk)", mean(count * 9 / 10..<count - 1))
    }

    /// The median CPU time of `body` in milliseconds, over at least 7 runs and 2 s, after one warm-up run.
    private static func cpuMedian(_ body: () throws -> Void) rethrows -> Double {
        try body()
        var samples: [Double] = []
        let start = DispatchTime.now().uptimeNanoseconds
        while samples.count < 7 || DispatchTime.now().uptimeNanoseconds - start < 2_000_000_000 {
            let before = cpuNanoseconds()
            try body()
            samples.append(Double(cpuNanoseconds() - before) / 1e6)
        }
        return samples.sorted()[samples.count / 2]
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
