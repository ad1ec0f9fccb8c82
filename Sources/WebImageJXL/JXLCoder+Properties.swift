import CJXL
import Foundation
import WebImage

extension JXLCoder {
    /// Reads a JPEG XL file's properties from its basic info and frame headers. Only the header events are
    /// subscribed and no output buffer is ever given, so libjxl skips over every frame's pixel data (a few
    /// tenths of a millisecond for a 6 MP image or a 20-frame 800×600 animation).
    ///
    /// Data cut inside the headers, or inside any frame but the last, throws ``ImageError/Code/badImageData``, as
    /// does a container whose boxes run past the end. A bare codestream cut inside its last frame's pixel data
    /// still reads: only a decode finds that.
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            try JXLContainer.checkWhole(bytes)
            let handle = try JXLDecoderHandle(
                input: bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME])
            var header: JXLHeader?
            var colorProfile: ColorProfile?
            var durations: [Double] = []
            events: while true {
                let status = handle.next()
                switch status {
                case JXL_DEC_BASIC_INFO:
                    header = JXLHeader(try handle.basicInfo())
                case JXL_DEC_COLOR_ENCODING:
                    colorProfile = handle.colorProfile(JXL_COLOR_PROFILE_TARGET_ORIGINAL,
                                                       contentPeak: header?.intensityTarget)
                case JXL_DEC_FRAME:
                    guard let header else { throw JXLDecoderHandle.error(for: status, while: "reading a frame") }
                    durations.append(header.duration(ticks: try handle.frameHeader().duration))
                case JXL_DEC_SUCCESS:
                    break events
                default:
                    throw JXLDecoderHandle.error(
                        for: status, while: header == nil ? "reading the header" : "reading frame headers")
                }
            }
            guard let header else { throw ImageError(.badImageData, "JPEG XL: the file has no image header") }
            guard !durations.isEmpty else { throw ImageError(.badImageData, "JPEG XL: the file has no frames") }
            let animated = durations.count > 1
            var properties = ImageProperties(
                format: .jxl, size: header.displayedSize, frameCount: durations.count,
                loopCount: animated ? header.loopCount : 1, hasAlpha: header.hasAlpha,
                orientation: header.orientation, frameDurations: animated ? durations : [])
            properties.describeColor(colorProfile, untagged: header.isGray ? .gray : .sRGB)
            return properties
        }
    }
}
