import Foundation
import Testing
@testable import WebImage

/// What the first-frame scanner tests (GIF, WebP) share: a noisy animation, and a scanner fed as a download
/// feeds it.
enum FramePrefixTestSupport {
    /// Three 60×40 frames (red, green, blue with noise, 100 ms each): the noise keeps each frame's data long.
    static func noisyFrames() throws -> [ImageFrame] {
        var state: UInt32 = 7
        return try [(255, 0, 0), (0, 255, 0), (0, 0, 255)].map { base in
            var bytes: [UInt8] = []
            for _ in 0..<(60 * 40) {
                state = state &* 1_103_515_245 &+ 12_345
                let noise = Int(state >> 26)
                bytes += [UInt8(min(base.0 + noise, 255)), UInt8(min(base.1 + noise, 255)),
                          UInt8(min(base.2 + noise, 255)), 255]
            }
            return ImageFrame(pixels: try PixelBuffer(width: 60, height: 40, rgba: bytes), duration: 0.1)
        }
    }

    /// Feeds `data` to `scanner` in `chunk`-byte steps, as a download would, until it decides.
    static func verdict<Scanner: PrefixScanner>(_ data: Data, chunk: Int, _ scanner: Scanner) -> PrefixVerdict {
        var scanner = scanner
        var received = 0
        while received < data.count {
            received = min(received + chunk, data.count)
            let verdict = data.prefix(received).withUnsafeBytes { scanner.advance($0) }
            if verdict != .needsMore { return verdict }
        }
        return .needsMore
    }

    /// Checks what every first-frame scanner promises for `data` (the noisy animation) fed in `chunk`-byte steps:
    /// a first-frame decode stops in its first half; the prefix decodes to the whole file's first frame bit for
    /// bit; it satisfies a first-frame rule and not one for every frame. Returns the prefix for the format's own
    /// checks, `nil` (an issue recorded) when there was no stop.
    static func expectFirstFrameStop<Scanner: PrefixScanner>(
        _ data: Data, chunk: Int, _ make: (DecodeOptions?) -> Scanner
    ) throws -> (prefix: Data, length: Int)? {
        let verdict = verdict(data, chunk: chunk, make(DecodeOptions(firstFrameOnly: true)))
        guard case .enough(let length) = verdict else {
            Issue.record("no stop: \(verdict)")
            return nil
        }
        #expect(length * 2 < data.count)
        let prefix = Scanner.prefix(of: data, length: length)
        let first = try ImageCoders.shared.decode(prefix)
        let whole = try ImageCoders.shared.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1 && first.size == PixelSize(width: 60, height: 40))
        #expect(first.pixels.bytes == whole.pixels.bytes)
        var again = make(DecodeOptions(firstFrameOnly: true))
        #expect(prefix.withUnsafeBytes { again.isSatisfied(by: $0) })
        var animated = make(DecodeOptions())
        #expect(!prefix.withUnsafeBytes { animated.isSatisfied(by: $0) })
        return (prefix, length)
    }
}
