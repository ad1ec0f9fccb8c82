import CTurboJPEG
import Foundation
import WebImage

/// The decoder's floor under `webimage serve`: one request's scaled decode and JPEG encode of a source, on one
/// core, through our coders as the proxy asks them (the size the answer needs, decoded straight to it), and
/// TurboJPEG called directly beside it (the scaled decode, and the encode of as many pixels as the answer has).
/// serve_bench.py turns these into the requests per second the cores would give if nothing else cost anything.
enum ServeFloorSuite {
    static func run(file: URL, width: Int) throws {
        let data = try Data(contentsOf: file)
        let properties = try ImageCoders.shared.properties(of: data)
        let height = max(1, Int((Double(properties.size.height) * Double(width) / Double(properties.size.width))
                                .rounded()))
        var options = DecodeOptions()
        options.firstFrameOnly = true
        options.thumbnailPixelSize = PixelSize(width: width, height: height)
        options.preserveAspectRatio = false
        let encoding = EncodeOptions(quality: 0.8)
        let ours = try Timing.median(minimumRuns: 9) {
            let image = try ImageCoders.shared.decode(data, options: options)
            _ = try ImageCoders.shared.encode(image, as: .jpeg, options: encoding)
        }
        let denominator = Int32(turboDenominator(source: properties.size.width, target: width))
        var buffer: [UInt8] = []
        let direct = Timing.median(minimumRuns: 9) {
            DirectDecoders.turboJPEG(data, into: &buffer, denominator: denominator)
            encodeTurboJPEG(buffer, width: width, height: height, quality: 80)
        }
        let name = "\(file.lastPathComponent) → \(width) px: scaled decode and encode on one core"
        Measurement(suite: "serve-floor", name: name, implementation: "swift-web-image", value: ours, unit: "ms").emit()
        Measurement(suite: "serve-floor", name: name, implementation: "TurboJPEG (C library, 1/\(denominator) scale)",
                    value: direct, unit: "ms").emit()
    }

    /// The smallest of TurboJPEG's 1/2, 1/4, 1/8 scales that still gives `target` pixels across.
    static func turboDenominator(source: Int, target: Int) -> Int {
        var denominator = 1
        while denominator < 8, (source + denominator * 2 - 1) / (denominator * 2) >= target { denominator *= 2 }
        return denominator
    }

    /// Encodes the first `width` × `height` pixels of `rgba` (rows of `width` pixels) as a 4:2:0 JPEG.
    private static func encodeTurboJPEG(_ rgba: [UInt8], width: Int, height: Int, quality: Int32) {
        guard let handle = tjInitCompress() else { return }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        rgba.withUnsafeBufferPointer { pixels in
            _ = tjCompress2(handle, pixels.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGBA.rawValue),
                            &output, &size, Int32(TJSAMP_420.rawValue), quality, 0)
        }
        tjFree(output)
    }
}
