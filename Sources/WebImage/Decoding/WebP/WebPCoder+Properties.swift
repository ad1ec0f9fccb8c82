import CWebP
import Foundation

extension WebPCoder {
    /// Reads a WebP file's properties from its RIFF chunks: the bitstream header of a still image, or the
    /// canvas, ANIM and ANMF chunk headers of an animation. No frame is decoded.
    public func properties(of data: Data) throws -> ImageProperties {
        var properties = try Self.containerProperties(of: data)
        properties.describeColor(data.withUnsafeBytes(WebPColorProfile.profile))
        return properties
    }

    private static func containerProperties(of data: Data) throws -> ImageProperties {
        try Self.withFeatures(of: data) { bytes, features in
            guard features.has_animation != 0 else {
                let orientation = WebPStillDecoder.isExtendedFormat(bytes)
                    ? try WebPContainer(bytes).exifOrientation ?? .up : .up
                let stored = PixelSize(width: Int(features.width), height: Int(features.height))
                return ImageProperties(format: .webp, size: orientation.displayedSize(of: stored),
                                       hasAlpha: features.has_alpha != 0, orientation: orientation)
            }
            let container = try WebPContainer(bytes)
            let frames = container.frameHeaders
            guard !frames.isEmpty else { throw ImageError(.badImageData, "WebP: the animation has no frames") }
            let orientation = container.exifOrientation ?? .up
            return ImageProperties(
                format: .webp, size: orientation.displayedSize(of: container.canvasSize), frameCount: frames.count,
                loopCount: container.loopCount, hasAlpha: container.mayShowTransparency(frames: frames),
                orientation: orientation,
                frameDurations: frames.count > 1
                    ? frames.map { WebPAnimationDecoder.duration(milliseconds: $0.milliseconds) } : [])
        }
    }
}
