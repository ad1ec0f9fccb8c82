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
    /// Converts `image` into the space `handling` asks for. Images with no profile (or an sRGB one) are left as
    /// they are for ``DecodeOptions/ColorHandling/sRGB``: untagged and sRGB-tagged files cost nothing and keep
    /// every byte. A profile Little CMS cannot build a transform from is dropped, and the samples kept. A
    /// bitmap only this image holds (a decoder's fresh result) is converted in place; a shared one is copied.
    static func apply(_ handling: DecodeOptions.ColorHandling, to image: inout Image) throws {
        let target: ColorTransform.Target
        switch handling {
        case .original: return
        case .sRGB: target = .sRGB
        case .displayP3: target = .displayP3
        }
        let source = image.colorProfile ?? ColorProfile.sRGBForConversion
        image.colorProfile = target == .displayP3 ? .displayP3 : nil
        if target == .sRGB && source.isSRGB { return }
        if target == .displayP3 && source.space == .displayP3 { return }
        let layout: ColorTransform.Layout = source.space == .gray ? .grayInRGBA : .rgba
        guard let transform = ColorTransform.cached(from: source, layout: layout, to: target) else {
            image.colorProfile = nil
            return
        }
        var converted: [ObjectIdentifier: PixelBuffer] = [:]
        for index in image.frames.indices {
            let identity = ObjectIdentifier(image.frames[index].pixels.storage)
            if let done = converted[identity] {
                image.frames[index].pixels = done
                continue
            }
            let count = image.frames[index].pixels.width * image.frames[index].pixels.height
            let inPlace = image.frames[index].pixels.mutateIfUniquelyOwned { bytes in
                guard let base = bytes.baseAddress else { return }
                transform.convert(UnsafeRawPointer(base), into: base, count: count)
            }
            if !inPlace {
                let done = try convert(image.frames[index].pixels, with: transform)
                converted[identity] = done
                image.frames[index].pixels = done
            }
        }
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

}
