import Foundation
import WebImage

// Decodes every frame of each GIF named on the command line, many times, and prints the median time per file
// as a JSON line. Times are CPU time of this process: the machine is shared with other work.
// Usage: GIFBenchmark FILE...

func cpuMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

func median(minimumRuns: Int = 15, minimumSeconds: Double = 1.0, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var samples: [Double] = []
    let start = cpuMilliseconds()
    while samples.count < minimumRuns || cpuMilliseconds() - start < minimumSeconds * 1000 {
        let before = cpuMilliseconds()
        try body()
        samples.append(cpuMilliseconds() - before)
    }
    samples.sort()
    return samples[samples.count / 2]
}

for path in CommandLine.arguments.dropFirst() {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let coder = GIFCoder()
    let frames = try coder.decode(data, options: DecodeOptions()).frames.count
    let decode = try median { _ = try coder.decode(data, options: DecodeOptions()) }
    let first = try median { _ = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true)) }
    let image = try coder.decode(data, options: DecodeOptions())
    let encode = try median(minimumRuns: 3) { _ = try coder.encode(image, as: .gif, options: EncodeOptions()) }
    let name = (path as NSString).lastPathComponent
    print(#"{"file":"\#(name)","frames":\#(frames),"impl":"swift-web-image","all_frames_ms":\#(decode),"#
        + #""first_frame_ms":\#(first),"encode_ms":\#(encode)}"#)
}
