import Foundation

extension DecodeOptions {
    /// What colour the decoded samples are in.
    public enum ColorHandling: Sendable, Hashable {
        /// sRGB, as ImageIO and CoreGraphics give an app on iOS: a file's ICC profile or colour code points are
        /// applied and the image carries no profile. The default.
        case sRGB
        /// Display P3, for callers that draw wide colour: the image carries ``ColorProfile/displayP3``.
        case displayP3
        /// The samples as stored, with the file's profile on ``Image/colorProfile`` so that an encoder can write
        /// it back. CMYK files are still converted (to sRGB): RGBA cannot hold four inks.
        case original
    }
}

/// Turns a decoded image's samples into the space ``DecodeOptions/ColorHandling`` asks for.
enum ColorConversion {
    /// The image in the space `handling` asks for. Images with no profile (or an sRGB one) are returned as they
    /// are for ``DecodeOptions/ColorHandling/sRGB``: untagged and sRGB-tagged files cost nothing and keep
    /// every byte. A profile Little CMS cannot build a transform from is dropped, and the samples kept.
    static func apply(_ handling: DecodeOptions.ColorHandling, to image: Image) throws -> Image {
        let target: ColorTransform.Target
        switch handling {
        case .original: return image
        case .sRGB: target = .sRGB
        case .displayP3: target = .displayP3
        }
        var result = image
        result.colorProfile = target == .displayP3 ? .displayP3 : nil
        let source = image.colorProfile ?? ColorProfile.sRGBForConversion
        if target == .sRGB && (source.isSRGB || source.space == .gray && isSRGBGray(source)) { return result }
        if target == .displayP3 && source.space == .displayP3 { return result }
        let layout: ColorTransform.Layout = source.space == .gray ? .grayInRGBA : .rgba
        guard let transform = ColorTransform.cached(from: source, layout: layout, to: target) else {
            var untouched = image
            untouched.colorProfile = nil
            return untouched
        }
        var converted: [ObjectIdentifier: PixelBuffer] = [:]
        for index in result.frames.indices {
            let pixels = result.frames[index].pixels
            let identity = ObjectIdentifier(pixels.storage)
            if let done = converted[identity] {
                result.frames[index].pixels = done
                continue
            }
            let done = try convert(pixels, with: transform)
            converted[identity] = done
            result.frames[index].pixels = done
        }
        return result
    }

    /// The pixels of `pixels` through `transform`, in a new buffer.
    static func convert(_ pixels: PixelBuffer, with transform: ColorTransform) throws -> PixelBuffer {
        try PixelBuffer(width: pixels.width, height: pixels.height) { destination in
            pixels.withUnsafeBytes { source in
                guard let from = source.baseAddress, let to = destination.baseAddress else { return }
                if transform.layout == .grayInRGBA {
                    // lcms writes no alpha for a gray source: start from a copy, then convert in place.
                    destination.copyMemory(from: source)
                    transform.convert(UnsafeRawPointer(to), into: to, count: pixels.width * pixels.height)
                } else {
                    transform.convert(from, into: to, count: pixels.width * pixels.height)
                }
            }
        }
    }

    private static func isSRGBGray(_ profile: ColorProfile) -> Bool {
        LittleCMSProfile(icc: profile.iccData).map(ColorSpaceRecognizer.grayIsSRGB) ?? true
    }
}

extension ColorProfile {
    /// The profile untagged samples are read with when they must be converted (to Display P3).
    static let sRGBForConversion: ColorProfile = ColorProfile(codePoints: .sRGB)!
}
