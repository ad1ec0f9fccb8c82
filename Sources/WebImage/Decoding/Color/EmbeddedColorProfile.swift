import Foundation

/// The colour description embedded in the first bytes of a built-in format's file, for decoders that read a
/// file piece by piece (``IncrementalDecoder``): by the time image data arrives, every colour chunk or segment
/// before it has.
enum EmbeddedColorProfile {
    static func read(_ bytes: UnsafeRawBufferPointer, format: ImageFormat?) -> ColorProfile? {
        switch format {
        case .jpeg?:
            guard let markers = try? JPEGMarkerScanner.scan(bytes) else { return nil }
            return markers.colorProfile(in: bytes)
        case .png?:
            return PNGColorChunks.profile(in: bytes)
        case .webp?:
            return WebPColorProfile.profile(in: bytes)
        default:
            return nil
        }
    }
}
