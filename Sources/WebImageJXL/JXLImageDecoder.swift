import CJXL
import WebImage

/// Decodes a JPEG XL file, still or animated, through libjxl's event loop into RGBA8 frames. The frames of a file
/// with more than 8 bits a sample whose colour is converted come out of libjxl as RGBA16 and are converted from
/// those samples.
///
/// The basic info is checked against ``DecodeOptions/limits`` before any pixel buffer exists. JPEG XL does not
/// list its frames up front, so the frame and total-pixel limits are checked on the running count as each frame
/// header arrives, before that frame's pixels are decoded. Frames come back coalesced (blended onto the full
/// canvas) by libjxl; each is then reduced to the thumbnail size and turned upright by
/// ``DecodeOptions/finish(_:sourceSize:orientation:)``.
enum JXLImageDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws -> Image {
        // libjxl would not notice a container cut after the codestream box it needs (an Exif box, say); a cut
        // download is refused whole, as for the other formats.
        try JXLContainer.checkWhole(bytes)
        let handle = try JXLDecoderHandle(
            input: bytes, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE])
        // With frameIndex the frames before it are skipped by libjxl; only one frame is ever wanted then.
        let wantsOneFrame = options.firstFrameOnly || options.frameIndex != nil
        var header: JXLHeader?
        var frames: [ImageFrame] = []
        var duration = 0.0
        var reduced = false
        var colorProfile: ColorProfile?
        // Set for samples of more than 8 bits whose colour is converted: frames then come out as RGBA16 and are
        // converted before they become 8 bits.
        var conversion: DeepColorConversion?
        // Set for a deep still kept deep (``DecodeOptions/keepsHighBitDepth``): frames then stay RGBA16.
        var keepsDepth = false

        events: while true {
            let status = handle.next()
            switch status {
            case JXL_DEC_BASIC_INFO:
                let info = JXLHeader(try handle.basicInfo())
                try options.limits.check(info.storedSize)
                if let index = options.frameIndex {
                    guard index >= 0 else {
                        throw ImageError(.invalidParameter, "JPEG XL: frame index \(index) is negative")
                    }
                    handle.skipFrames(index)
                }
                header = info
            case JXL_DEC_COLOR_ENCODING:
                // An HDR original keeps its own encoding: libjxl's conversion to sRGB maps the intensity target
                // to SDR white, which shows reference white at a tenth of its light; the library's one tone
                // mapper converts it instead, as it does every format's.
                let peak = header?.intensityTarget
                if handle.colorProfile(JXL_COLOR_PROFILE_TARGET_ORIGINAL, contentPeak: peak)?.space.isHDR != true {
                    handle.preferSRGB(gray: header?.isGray ?? false)
                }
                // What the output pixels are in: sRGB for XYB files (asked for above), the file's space otherwise.
                colorProfile = handle.colorProfile(JXL_COLOR_PROFILE_TARGET_DATA, contentPeak: peak)
                // A still kept deep is converted in 16 bits. Otherwise a thumbnail is converted after its
                // scale-down, from 8 bits: within rounding of converting first, at a fraction of the cost.
                keepsDepth = options.keepsHighBitDepth && (header?.bitsPerSample ?? 8) > 8
                    && (wantsOneFrame || header?.isAnimated == false)
                if keepsDepth {
                    conversion = DeepColorConversion(from: colorProfile, for: options.colorHandling, keepingDepth: true)
                } else if let header, header.bitsPerSample > 8, !header.isGray,
                          options.targetSize(forDisplayed: header.displayedSize) == nil {
                    conversion = DeepColorConversion(from: colorProfile, for: options.colorHandling)
                }
            case JXL_DEC_FRAME:
                guard let header else { throw JXLDecoderHandle.error(for: status, while: "reading a frame") }
                try options.limits.check(frameCount: frames.count + 1, canvas: header.storedSize)
                duration = header.duration(ticks: try handle.frameHeader().duration)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let header else { throw JXLDecoderHandle.error(for: status, while: "reading a frame") }
                let size = header.storedSize
                if keepsDepth {
                    // A float file (scRGB and the like) becomes 16 bits, as imgproxy makes it RGB16.
                    let deep = try DeepPixelBuffer(width: size.width, height: size.height,
                                                   significantBits: min(header.bitsPerSample, 16)) { samples in
                        let raw = UnsafeMutableRawBufferPointer(samples)
                        try handle.setImageOut(raw, format: JXLDecoderHandle.rgba16)
                        let done = handle.next()
                        guard done == JXL_DEC_FULL_IMAGE else {
                            throw JXLDecoderHandle.error(for: done, while: "decoding frame \(frames.count + 1)")
                        }
                        conversion?.convert(UnsafeRawPointer(raw.baseAddress!), into: raw.baseAddress!,
                                            count: size.area)
                    }
                    let finished = try options.finish(deep: deep, sourceSize: size, orientation: header.orientation)
                    reduced = reduced || finished.reduced
                    frames.append(try ImageFrame(deep: finished.pixels, duration: duration))
                    if wantsOneFrame { break events }
                    continue events
                }
                // libjxl writes the frame straight into the new buffer; the closure returns once it is whole.
                let pixels = try PixelBuffer(width: size.width, height: size.height) { output in
                    if let conversion {
                        try handle.decodeFrame(converting: conversion, into: output, frame: frames.count + 1)
                    } else {
                        try handle.setImageOut(output, format: JXLDecoderHandle.rgba8)
                        let done = handle.next()
                        guard done == JXL_DEC_FULL_IMAGE else {
                            throw JXLDecoderHandle.error(for: done, while: "decoding frame \(frames.count + 1)")
                        }
                    }
                }
                let finished = try options.finish(pixels, sourceSize: size, orientation: header.orientation)
                reduced = reduced || finished.reduced
                frames.append(ImageFrame(pixels: finished.pixels, duration: duration))
                if wantsOneFrame { break events }
            case JXL_DEC_SUCCESS:
                break events
            default:
                throw JXLDecoderHandle.error(for: status, while: header == nil ? "reading the header" : "decoding")
            }
        }

        guard let header else { throw ImageError(.badImageData, "JPEG XL: the file has no image header") }
        guard !frames.isEmpty else {
            if let index = options.frameIndex {
                throw ImageError(.invalidParameter, "JPEG XL: frame \(index) is past the last frame")
            }
            throw ImageError(.badImageData, "JPEG XL: the file has no frames")
        }
        var flags: Image.Flags = header.hasAlpha ? .hasAlpha : []
        if reduced { flags.insert(.thumbnail) }
        // One frame is a still image whatever the file says, as for GIF, APNG and WebP.
        if frames.count == 1 { frames[0].duration = 0 }
        var image = Image(frames: frames, loopCount: frames.count > 1 ? header.loopCount : 1, format: .jxl,
                          scale: options.resolvedScale, orientation: header.orientation, flags: flags)
        // Frames converted from their deep samples carry their new space; others the file's, for the shared
        // conversion.
        image.colorProfile = conversion.map(\.resultProfile) ?? colorProfile
        return image
    }
}
