import Foundation
import WebImage

// Plays a 200-frame animation through every frame and reports time per frame and the process's peak resident
// memory (VmHWM), for one mode per process so the peaks do not mix:
//   eager FILE           decode every frame up front (the coders), then show them from memory
//   lazy FILE FRAMES     AnimatedImage with a buffer of FRAMES frames ("auto": the automatic budget), frames
//                        composited as they are shown
//   open FILE            only create the AnimatedImage (the up-front pass over the file)
// Each mode plays all frames twice in order (two loops), then 200 frames in a shuffled order (seeks).
// Output: one JSON object per line.

func status(_ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

func shuffled(_ count: Int) -> [Int] {
    var state: UInt64 = 12345
    var order = Array(0..<count)
    for index in stride(from: count - 1, to: 0, by: -1) {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        order.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
    }
    return order
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: AnimationBenchmark eager|lazy|open FILE [FRAMES]\n".utf8))
    exit(2)
}
let mode = arguments[1], path = arguments[2]
let data = try Data(contentsOf: URL(fileURLWithPath: path))
let baselineKB = status("VmRSS")
var checksum = 0
var result: [String: String] = ["mode": "\"\(mode)\"", "file": "\"\(URL(fileURLWithPath: path).lastPathComponent)\""]

switch mode {
case "eager":
    var image: Image?
    let decode = try seconds { image = try ImageCoders.shared.decode(data) }
    guard let image else { exit(1) }
    let frames = image.frames
    let play = seconds {
        for _ in 0..<2 { for frame in frames { checksum &+= Int(frame.pixels[0, 0].r) } }
    }
    let seek = seconds { for index in shuffled(frames.count) { checksum &+= Int(frames[index].pixels[1, 1].g) } }
    result["frames"] = "\(frames.count)"
    result["decodeAllMs"] = String(format: "%.1f", decode * 1000)
    result["playMsPerFrame"] = String(format: "%.4f", play * 1000 / Double(2 * frames.count))
    result["seekMsPerFrame"] = String(format: "%.4f", seek * 1000 / Double(frames.count))
    result["memoryCostMB"] = String(format: "%.1f", Double(image.memoryCost) / 1_048_576)
case "lazy":
    // A number of frames, or "auto" for the automatic budget.
    let bufferFrames = Int(arguments.count > 3 ? arguments[3] : "3")
    var animation: AnimatedImage?
    let probe = try AnimatedImage(data: data, options: .init(maxBufferSize: 0, decodeFirstFrameOnly: true))
    let frameBytes = probe.size.width * probe.size.height * 4
    let open = try seconds {
        animation = try AnimatedImage(data: data, options: .init(maxBufferSize: bufferFrames.map { $0 * frameBytes }))
    }
    guard let animation else { exit(1) }
    var highestCost = 0
    let play = try seconds {
        for _ in 0..<2 {
            for index in 0..<animation.frameCount {
                checksum &+= Int(try animation.frame(at: index).pixels[0, 0].r)
                highestCost = max(highestCost, animation.memoryCost)
            }
        }
    }
    let seek = try seconds {
        for index in shuffled(animation.frameCount) {
            checksum &+= Int(try animation.frame(at: index).pixels[1, 1].g)
            highestCost = max(highestCost, animation.memoryCost)
        }
    }
    result["frames"] = "\(animation.frameCount)"
    result["bufferFrames"] = bufferFrames.map { "\($0)" } ?? "\"auto\""
    result["bufferMB"] = String(format: "%.1f", Double(animation.maxBufferSize) / 1_048_576)
    result["openMs"] = String(format: "%.2f", open * 1000)
    result["playMsPerFrame"] = String(format: "%.3f", play * 1000 / Double(2 * animation.frameCount))
    result["seekMsPerFrame"] = String(format: "%.3f", seek * 1000 / Double(animation.frameCount))
    result["highestMemoryCostMB"] = String(format: "%.1f", Double(highestCost) / 1_048_576)
case "open":
    var frameCount = 0
    let open = try seconds {
        for _ in 0..<20 { frameCount = try AnimatedImage(data: data).frameCount }
    }
    result["frames"] = "\(frameCount)"
    result["openMs"] = String(format: "%.2f", open * 1000 / 20)
default:
    FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
    exit(2)
}
result["baselineRssMB"] = String(format: "%.1f", Double(baselineKB) / 1024)
result["peakRssMB"] = String(format: "%.1f", Double(status("VmHWM")) / 1024)
result["checksum"] = "\(checksum)"
print("{" + result.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}")
