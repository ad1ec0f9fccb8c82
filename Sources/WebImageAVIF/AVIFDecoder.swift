import CAVIF
import WebImage

/// Decodes AVIF through libavif (AV1 by dav1d, or libaom when that is what libavif was built with).
///
/// Every size and count is checked against ``DecodeOptions/limits`` from the parsed container, before the AV1
/// decoder runs; libavif is also given the pixel limit, so the AV1 decoder refuses a frame whose sequence
/// header is larger than the container said. 8, 10 and 12-bit images are converted to RGBA8 by libavif
/// (straight alpha; a premultiplied file is unpremultiplied); a deep image (still or each frame of a sequence)
/// whose colour is converted goes through RGBA16 so that the conversion sees every bit. Thumbnails and orientation are the shared
/// ``DecodeOptions/finish(_:sourceSize:orientation:)``.
enum AVIFDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws -> Image {
        let handle = try AVIFDecoderHandle.parse(bytes, sizeLimit: options.limits.maxPixels)
        let peak = ISOBMFFContentPeak.read(bytes)
        let profile = handle.decoder.pointee.image.flatMap { AVIFColorProfile.profile(of: $0, contentPeak: peak) }
        let header = try AVIFHeader(handle, bytes: bytes)
        try options.limits.check(header.storedSize)
        let deep = handle.decoder.pointee.image.map { $0.pointee.depth > 8 } ?? false
        // Only a still keeps its depth: a sequence decodes to 8 bits.
        let keepsDepth = deep && options.keepsHighBitDepth
            && (!header.isAnimated || options.firstFrameOnly || options.frameIndex != nil)
        let conversion = deep
            ? DeepColorConversion(from: profile, for: options.colorHandling, keepingDepth: keepsDepth) : nil
        var (image, converted) = try decodeFrames(handle, header: header, options: options, conversion: conversion,
                                                  keepsDepth: keepsDepth)
        // A converted still carries its new space; anything else the file's, for the shared conversion.
        image.colorProfile = converted ? conversion?.resultProfile : profile
        return image
    }

    private static func decodeFrames(_ handle: AVIFDecoderHandle, header: AVIFHeader, options: DecodeOptions,
                                     conversion: DeepColorConversion?, keepsDepth: Bool) throws
        -> (image: Image, converted: Bool)
    {
        if let index = options.frameIndex {
            guard index >= 0, index < header.frameCount else {
                throw ImageError(.invalidParameter, "AVIF: frame \(index) asked, the file has \(header.frameCount)")
            }
            try header.checkTimingCost(frames: index + 1)
            try handle.decodeFrame(at: index)
            return (try still(handle, header: header, options: options, conversion: conversion,
                              keepsDepth: keepsDepth), conversion != nil)
        }
        if header.isAnimated, !options.firstFrameOnly {
            return (try AVIFSequenceDecoder.decode(handle, header: header, options: options, conversion: conversion),
                    conversion != nil)
        }
        try handle.decodeNextFrame()
        var image = try still(handle, header: header, options: options, conversion: conversion,
                              keepsDepth: keepsDepth)
        if header.isAnimated {
            // The first frame of a sequence keeps its timing, as the other animated formats do.
            image.frames[0].duration = header.frameDurations[0]
            image.loopCount = header.loopCount
        }
        return (image, conversion != nil)
    }

    /// The frame just decoded as a still image; with `keepsDepth` (a deep file, ``DecodeOptions/keepsHighBitDepth``)
    /// its RGBA16 samples are kept as its deep bitmap, converted by `conversion` (which then keeps the depth).
    private static func still(_ handle: AVIFDecoderHandle, header: AVIFHeader, options: DecodeOptions,
                              conversion: DeepColorConversion?, keepsDepth: Bool) throws -> Image {
        var flags: Image.Flags = header.hasAlpha ? .hasAlpha : []
        let frame: ImageFrame
        if keepsDepth {
            let finished = try options.finish(deep: try deepPixels(of: handle, header: header, converting: conversion),
                                              sourceSize: header.storedSize, orientation: header.orientation)
            if finished.reduced { flags.insert(.thumbnail) }
            frame = try ImageFrame(deep: finished.pixels)
        } else {
            let finished = try options.finish(try pixels(of: handle, header: header, converting: conversion),
                                              sourceSize: header.storedSize, orientation: header.orientation)
            if finished.reduced { flags.insert(.thumbnail) }
            frame = ImageFrame(pixels: finished.pixels)
        }
        return Image(frames: [frame], loopCount: 1, format: .avif, scale: options.resolvedScale,
                     orientation: header.orientation, flags: flags)
    }

    /// The frame just decoded as RGBA16 from libavif, with its depth as the significant bits, colour converted
    /// in place by `conversion`.
    private static func deepPixels(of handle: AVIFDecoderHandle, header: AVIFHeader,
                                   converting conversion: DeepColorConversion?) throws -> DeepPixelBuffer {
        let image = try decodedImage(handle, header: header)
        let size = header.storedSize
        return try DeepPixelBuffer(width: size.width, height: size.height,
                                   significantBits: Int(image.pointee.depth)) { samples in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.depth = 16
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.alphaPremultiplied = 0
            rgb.pixels = UnsafeMutableRawPointer(samples.baseAddress!).assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(size.width * 8)
            try AVIFStatus.check(avifImageYUVToRGB(image, &rgb), action: "converting YUV to RGB")
            conversion?.convert(UnsafeRawPointer(samples.baseAddress!), into: samples.baseAddress!,
                                count: size.area)
        }
    }

    /// The frame just decoded, refused when its AV1 size disagrees with the container: the properties and every
    /// other frame were sized from the container.
    private static func decodedImage(_ handle: AVIFDecoderHandle, header: AVIFHeader) throws
        -> UnsafeMutablePointer<avifImage>
    {
        guard let image = handle.decoder.pointee.image else {
            throw ImageError(.badImageData, "AVIF: the decoder returned no image")
        }
        let size = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        guard size == header.storedSize else {
            throw ImageError(.badImageData, "AVIF: a frame is \(size), the container says \(header.storedSize)")
        }
        return image
    }

    /// Converts the frame just decoded from YUV (any depth, any subsampling) to RGBA8, written by libavif
    /// straight into the new buffer, or with a colour `conversion`, to RGBA16 that the conversion takes to RGBA8.
    /// A frame whose AV1 size disagrees with the container is refused.
    static func pixels(of handle: AVIFDecoderHandle, header: AVIFHeader,
                       converting conversion: DeepColorConversion? = nil) throws -> PixelBuffer {
        let image = try decodedImage(handle, header: header)
        let size = header.storedSize
        if let conversion { return try converted(image, size: size, with: conversion) }
        return try PixelBuffer(width: size.width, height: size.height) { output in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.depth = 8
            rgb.format = AVIF_RGB_FORMAT_RGBA  // alpha is written as 255 when the image has no alpha plane
            rgb.alphaPremultiplied = 0
            rgb.pixels = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(size.width * PixelBuffer.bytesPerPixel)
            try AVIFStatus.check(avifImageYUVToRGB(image, &rgb), action: "converting YUV to RGB")
        }
    }

    /// The frame as RGBA16 from libavif, taken to RGBA8 by `conversion` (a temporary of 8 bytes a pixel).
    private static func converted(_ image: UnsafeMutablePointer<avifImage>, size: PixelSize,
                                  with conversion: DeepColorConversion) throws -> PixelBuffer {
        let count = size.width * size.height
        let wide = UnsafeMutableRawPointer.allocate(byteCount: count * 8, alignment: 16)
        defer { wide.deallocate() }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 16
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.alphaPremultiplied = 0
        rgb.pixels = wide.assumingMemoryBound(to: UInt8.self)
        rgb.rowBytes = UInt32(size.width * 8)
        try AVIFStatus.check(avifImageYUVToRGB(image, &rgb), action: "converting YUV to RGB")
        return try PixelBuffer(width: size.width, height: size.height) { output in
            guard let base = output.baseAddress else { return }
            conversion.convert(UnsafeRawPointer(wide), into: base, count: count)
        }
    }
}
