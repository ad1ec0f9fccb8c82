import CAVIF
import Foundation
import WebImage

/// Writes AVIF with libavif's AV1 encoder (libaom in Debian's build).
///
/// libavif 0.11 has no `quality` setting: ``EncodeOptions/clampedQuality`` q maps to the quantizer
/// round((1 − q) × 63) for colour and alpha, used as both the minimum and the maximum (libavif 1.x's own
/// mapping of its quality 0…100). Lossless is quantizer 0 with 4:4:4 and the identity matrix. Several frames
/// become an image sequence (`avis`) with each frame's duration in milliseconds; libavif 0.11 cannot write a
/// repetition count, so readers play it forever. EXIF and XMP are written as the file's metadata items.
enum AVIFEncoder {
    /// The media timescale of written sequences: durations are stored in milliseconds.
    static let timescale: UInt64 = 1000

    static func encode(_ frames: [ImageFrame], hasAlpha: Bool, colorProfile: ColorProfile? = nil,
                       metadata: ImageMetadata? = nil, speed: Int, options: EncodeOptions) throws -> Data {
        guard let encoder = avifEncoderCreate() else {
            throw ImageError(.imageTooLarge, "AVIF: cannot allocate an encoder")
        }
        defer { avifEncoderDestroy(encoder) }
        configure(encoder, speed: speed, options: options)

        var output = avifRWData(data: nil, size: 0)
        defer { avifRWDataFree(&output) }
        if frames.count == 1 {
            let image = try AVIFYUVImage(frames[0], lossless: options.lossless, keepAlpha: hasAlpha,
                                         colorProfile: colorProfile)
            image.setMetadata(metadata)
            try AVIFStatus.check(avifEncoderWrite(encoder, image.image, &output), diagnostics: encoder.pointee.diag,
                                 action: "encoding")
        } else {
            encoder.pointee.timescale = timescale
            // libaom 3.6 at speed 7 and above loses lossless inter frames (they come back as copies of the first
            // one): lossless sequences are written as keyframes only.
            let flags = options.lossless ? AVIF_ADD_IMAGE_FLAG_FORCE_KEYFRAME.rawValue : AVIF_ADD_IMAGE_FLAG_NONE.rawValue
            for (index, frame) in frames.enumerated() {
                let image = try AVIFYUVImage(frame, lossless: options.lossless, keepAlpha: hasAlpha,
                                             colorProfile: colorProfile)
                // The file's metadata is taken from the first image added.
                if index == 0 { image.setMetadata(metadata) }
                let milliseconds = UInt64(max(1, (frame.duration * 1000).rounded()))
                try AVIFStatus.check(avifEncoderAddImage(encoder, image.image, milliseconds, flags),
                                     diagnostics: encoder.pointee.diag, action: "encoding frame \(index + 1)")
            }
            try AVIFStatus.check(avifEncoderFinish(encoder, &output), diagnostics: encoder.pointee.diag,
                                 action: "finishing the sequence")
        }
        guard let bytes = output.data, output.size > 0 else {
            throw ImageError(.badImageData, "AVIF: the encoder produced no data")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// The quantizer for lossy `quality` 0…1: 0 is lossless, 63 the worst.
    static func quantizer(quality: Double) -> Int32 {
        Int32(((1 - quality) * Double(AVIF_QUANTIZER_WORST_QUALITY)).rounded())
    }

    private static func configure(_ encoder: UnsafeMutablePointer<avifEncoder>, speed: Int, options: EncodeOptions) {
        let quantizer = options.lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : quantizer(quality: options.clampedQuality)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        encoder.pointee.speed = Int32(min(max(speed, Int(AVIF_SPEED_SLOWEST)), Int(AVIF_SPEED_FASTEST)))
        encoder.pointee.maxThreads = 1
    }
}
