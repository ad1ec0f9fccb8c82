import WebImage

/// Decodes every frame of an AVIF image sequence (`avis`). AV1 frames in a sequence are whole pictures of the
/// track's size (no compositing as in GIF or WebP), predicted from earlier frames, so they are decoded in
/// order with `avifDecoderNextImage`. Durations come from the time-to-sample table (``AVIFHeader``); the
/// loop count is forever (see ``AVIFHeader/loopCount``). A frame that fails to decode fails the whole image. With a
/// `conversion` (a deep sequence whose colour is converted), each frame is converted from its deep samples.
enum AVIFSequenceDecoder {
    static func decode(_ handle: AVIFDecoderHandle, header: AVIFHeader, options: DecodeOptions,
                       conversion: DeepColorConversion?) throws -> Image {
        try options.limits.check(frameCount: header.frameCount, canvas: header.storedSize)
        try header.checkTimingCost(frames: header.frameCount)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(header.frameCount)
        var reduced = false
        for duration in header.frameDurations {
            try handle.decodeNextFrame()
            let finished = try options.finish(try AVIFDecoder.pixels(of: handle, header: header, converting: conversion),
                                              sourceSize: header.storedSize, orientation: header.orientation)
            reduced = reduced || finished.reduced
            frames.append(ImageFrame(pixels: finished.pixels, duration: duration))
        }
        var flags: Image.Flags = header.hasAlpha ? .hasAlpha : []
        if reduced { flags.insert(.thumbnail) }
        return Image(frames: frames, loopCount: header.loopCount, format: .avif, scale: options.resolvedScale,
                     orientation: header.orientation, flags: flags)
    }
}
