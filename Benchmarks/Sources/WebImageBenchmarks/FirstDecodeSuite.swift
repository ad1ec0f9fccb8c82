import Foundation
import WebImage

/// The first decode in a fresh process beside the decodes after it (issue 17): the first gets its pixel memory
/// from the kernel, the rest reuse the pool's. Run once per fresh process; `Benchmarks/process_bench.py` takes
/// the medians over many processes.
enum FirstDecodeSuite {
    static func run(file: URL) throws {
        let data = try Data(contentsOf: file)
        let name = "\(file.lastPathComponent), full decode"
        let before = Timing.cpuMilliseconds()
        _ = try ImageCoders.shared.decode(data)
        let first = Timing.cpuMilliseconds() - before
        let pooled = try Timing.median(minimumRuns: 9, minimumSeconds: 0) { _ = try ImageCoders.shared.decode(data) }
        Measurement(suite: "process", name: name, implementation: "first decode in a fresh process",
                    value: first, unit: "ms").emit()
        Measurement(suite: "process", name: name, implementation: "swift-web-image", value: pooled, unit: "ms").emit()
    }
}
