import Foundation
import WebImage

/// What every harness shares: small decode limits and a reader that turns the fuzzer's first bytes into choices.
public enum FuzzLimits {
    /// Small enough that a legal but huge image is refused by the limits instead of exhausting the fuzzer's
    /// memory (1 Mpx per frame is 4 MiB of RGBA), large enough that every fixture still decodes.
    public static let decode = DecodeLimits(maxPixels: 1 << 20, maxFrames: 64, maxTotalPixels: 1 << 22)

    /// Decode options picked by one fuzzer-chosen byte: thumbnail or full size, orientation on or off, first
    /// frame only or all frames, so that the scaling and orientation paths are fuzzed too.
    public static func options(choice: UInt8) -> DecodeOptions {
        var options = DecodeOptions(limits: decode)
        if choice & 1 != 0 { options.thumbnailPixelSize = PixelSize(width: 7, height: 5) }
        options.preserveAspectRatio = choice & 2 == 0
        options.applyOrientation = choice & 4 == 0
        options.firstFrameOnly = choice & 8 != 0
        if choice & 16 != 0 { options.scaleDownLimitBytes = 4 * 64 * 64 }
        return options
    }
}

/// The fuzzer's bytes, with a cursor for the leading "choice" bytes a harness takes before the payload.
public struct FuzzInput {
    public private(set) var remaining: Data

    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        remaining = start.map { Data(bytes: $0, count: count) } ?? Data()
    }

    /// The next byte, or 0 when the input is used up.
    public mutating func takeByte() -> UInt8 {
        guard let byte = remaining.first else { return 0 }
        remaining = remaining.dropFirst()
        return byte
    }

    /// The rest of the input as a fresh `Data` starting at index 0 (decoders may assume it).
    public var payload: Data { Data(remaining) }
}
