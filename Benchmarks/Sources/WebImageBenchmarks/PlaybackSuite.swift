import Foundation
import WebImage

/// The lazy-animation benchmark (issue 3, formerly Benchmarks/animation): a 200-frame 480×360 animation played
/// lazily with a few frames buffered beside decoding and holding every frame. One mode per process, so each
/// peak resident memory (VmHWM) is its own; run.sh runs the modes one after another.
///
/// Modes: `eager FILE` (every frame decoded up front, then shown from memory), `lazy FILE FRAMES` (an
/// ``AnimatedImage`` buffering FRAMES frames, `auto` for the automatic budget), `open FILE` (only the up-front
/// pass). Each plays every frame twice in order, then 200 frames in a shuffled order (seeks).
enum PlaybackSuite {
    static func run(mode: String, file: URL, frames: String?) throws {
        let data = try Data(contentsOf: file)
        let name = file.pathExtension.uppercased() + ", 200 × 480x360"
        var checksum = 0
        switch mode {
        case "eager":
            var decoded: Image?
            let decode = try wallSeconds { decoded = try ImageCoders.shared.decode(data) }
            guard let image = decoded else { return }
            let seek = wallSeconds {
                for index in shuffled(image.frames.count) { checksum &+= Int(image.frames[index].pixels[1, 1].g) }
            }
            emit(name, "eager: all frames held", "peak RSS", Double(peakResidentBytes()) / 1_048_576, "MB")
            emit(name, "eager: all frames held", "decode all", decode * 1000, "ms")
            emit(name, "eager: all frames held", "random seek, per frame", seek * 1000 / Double(image.frames.count), "ms")
        case "lazy":
            let bufferFrames = Int(frames ?? "3")
            let probe = try AnimatedImage(data: data, options: .init(maxBufferSize: 0, decodeFirstFrameOnly: true))
            let frameBytes = probe.size.width * probe.size.height * 4
            var opened: AnimatedImage?
            let open = try wallSeconds {
                opened = try AnimatedImage(data: data, options: .init(maxBufferSize: bufferFrames.map { $0 * frameBytes }))
            }
            guard let animation = opened else { return }
            let play = try wallSeconds {
                for _ in 0..<2 {
                    for index in 0..<animation.frameCount { checksum &+= Int(try animation.frame(at: index).pixels[0, 0].r) }
                }
            }
            let seek = try wallSeconds {
                for index in shuffled(animation.frameCount) {
                    checksum &+= Int(try animation.frame(at: index).pixels[1, 1].g)
                }
            }
            let label = "lazy: " + (bufferFrames.map { "\($0)-frame buffer" } ?? "automatic buffer")
            emit(name, label, "peak RSS", Double(peakResidentBytes()) / 1_048_576, "MB")
            emit(name, label, "open", open * 1000, "ms")
            emit(name, label, "play, per frame", play * 1000 / Double(2 * animation.frameCount), "ms")
            emit(name, label, "random seek, per frame", seek * 1000 / Double(animation.frameCount), "ms")
        default:
            throw ImageError(.badImageData, "unknown playback mode \(mode) (eager or lazy)")
        }
        if checksum == 42 { print("") }  // keeps the reads from being optimised away
    }

    static func emit(_ file: String, _ implementation: String, _ what: String, _ value: Double, _ unit: String) {
        Measurement(suite: "animation", name: "\(file): \(what)", implementation: implementation,
                    value: value, unit: unit).emit()
    }

    static func wallSeconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// 0..<count in a fixed pseudo-random order.
    static func shuffled(_ count: Int) -> [Int] {
        var state: UInt64 = 12345
        var order = Array(0..<count)
        for index in stride(from: count - 1, to: 0, by: -1) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            order.swapAt(index, Int((state >> 33) % UInt64(index + 1)))
        }
        return order
    }
}
