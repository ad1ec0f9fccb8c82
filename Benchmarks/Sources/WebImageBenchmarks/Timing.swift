import Foundation

/// Times a piece of work: warms it up, then runs it until both a minimum count and a minimum duration are
/// reached, and reports the median. Medians resist the odd slow run caused by the other core's work.
enum Timing {
    static func median(minimumRuns: Int = 15, minimumSeconds: Double = 1.0, _ body: () throws -> Void) rethrows -> Double {
        try body()
        var samples: [Double] = []
        let start = DispatchTime.now().uptimeNanoseconds
        while samples.count < minimumRuns
            || Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < minimumSeconds {
            let before = DispatchTime.now().uptimeNanoseconds
            try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - before) / 1e6)
            if samples.count >= 2000 { break }
        }
        samples.sort()
        return samples[samples.count / 2]
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
