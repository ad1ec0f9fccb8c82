import Foundation

/// Times a piece of work: warms it up, then runs it until both a minimum count and a minimum CPU time are
/// reached, and reports the median in milliseconds of this process's CPU time — the measure the C and Pillow
/// references report too, and one that other work on a shared machine does not inflate.
enum Timing {
    static func median(minimumRuns: Int = 15, minimumSeconds: Double = 1.0, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var samples: [Double] = []
        let start = cpuMilliseconds()
        while samples.count < minimumRuns || cpuMilliseconds() - start < minimumSeconds * 1000 {
            let before = cpuMilliseconds()
            try body()
            samples.append(cpuMilliseconds() - before)
            if samples.count >= 2000 { break }
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// Times two pieces of work run in turn, `first` then `second`, `runs` times after a warm-up of each, and
    /// reports both medians and the median of the per-turn differences (`second` − `first`): what `second` adds,
    /// with drift on a shared machine hitting both sides of each difference alike.
    static func alternating(runs: Int = 31, _ first: () throws -> Void, _ second: () throws -> Void) rethrows
        -> (first: Double, second: Double, difference: Double) {
        try first()
        try second()
        var firsts: [Double] = [], seconds: [Double] = [], differences: [Double] = []
        for _ in 0..<runs {
            let start = cpuMilliseconds()
            try first()
            let middle = cpuMilliseconds()
            try second()
            let end = cpuMilliseconds()
            firsts.append(middle - start)
            seconds.append(end - middle)
            differences.append((end - middle) - (middle - start))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        return (median(firsts), median(seconds), median(differences))
    }

    /// CPU time used by this process so far, in milliseconds.
    static func cpuMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }
}

/// One measured result, printed as a JSON line for the report script.
struct Measurement {
    let suite: String
    let name: String
    let implementation: String
    let value: Double
    let unit: String

    func emit() {
        let escaped = [suite, name, implementation, unit].map { $0.replacingOccurrences(of: "\"", with: "'") }
        let line = #"{"suite":"\#(escaped[0])","name":"\#(escaped[1])","impl":"\#(escaped[2])","value":\#(value),"unit":"\#(escaped[3])"}"#
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Peak resident memory of this process so far, in bytes (VmHWM), or 0 where /proc is missing.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
    return 0
}

/// Current resident memory of this process, in bytes (VmRSS).
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
    return 0
}
