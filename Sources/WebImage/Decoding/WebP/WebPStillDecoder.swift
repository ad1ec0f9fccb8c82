import CWebP

/// Decodes a still WebP (lossy, lossless, with or without alpha) straight into a ``PixelBuffer`` through libwebp's
/// advanced API. Thumbnails and the scale-down limit use libwebp's own scaler while decoding, so a large image
/// never exists at full size; ``DecodeOptions/finish(_:sourceSize:orientation:)`` then only turns it upright.
enum WebPStillDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures,
                       options: DecodeOptions) throws -> Image {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw ImageError(.badImageData, "WebP: the data is empty")
        }
        let storedSize = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.limits.check(storedSize)
        // Only the extended format (VP8X) can carry an EXIF chunk; simple files skip the demuxer.
        let orientation = isExtendedFormat(bytes) ? try WebPContainer(bytes).exifOrientation ?? .up : .up
        let target = options.storedTargetSize(for: storedSize, orientation: orientation) ?? storedSize

        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageError(.unsupportedFormat, "WebP: the libwebp decoder library does not match its headers")
        }
        if target != storedSize {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        let pixels = try PixelBuffer(width: target.width, height: target.height) { output in
            config.output.u.RGBA.rgba = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(target.width * PixelBuffer.bytesPerPixel)
            config.output.u.RGBA.size = output.count
            let status = WebPDecode(base, bytes.count, &config)
            WebPFreeDecBuffer(&config.output)  // frees nothing of ours: the memory is external
            guard status == VP8_STATUS_OK else { throw WebPStatus.error(status, action: "decoding the image") }
        }
        let finished = try options.finish(pixels, sourceSize: storedSize, orientation: orientation)
        var flags: Image.Flags = features.has_alpha != 0 ? .hasAlpha : []
        if finished.reduced { flags.insert(.thumbnail) }
        return Image(frames: [ImageFrame(pixels: finished.pixels)], loopCount: 1, format: .webp,
                     scale: options.resolvedScale, orientation: orientation, flags: flags)
    }

    /// Whether the first chunk is VP8X (the extended format with metadata, alpha or animation).
    static func isExtendedFormat(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 16 && bytes[12] == 0x56 && bytes[13] == 0x50 && bytes[14] == 0x38 && bytes[15] == 0x58
    }
}
