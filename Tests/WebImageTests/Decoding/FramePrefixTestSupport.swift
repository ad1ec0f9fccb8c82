import Foundation
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
}
