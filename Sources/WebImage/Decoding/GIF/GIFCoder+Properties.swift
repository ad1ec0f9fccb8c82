import Foundation

extension GIFCoder {
    /// Reads a GIF's properties from its records: the screen, each image descriptor and graphic control
    /// extension, the loop count. Image data is stepped over sub-block by sub-block, never decompressed, so a
    /// 1 000-frame file costs one pass over its bytes and no pixel memory. A file cut before its trailer is
    /// refused, as the decoder refuses it.
    public func properties(of data: Data) throws -> ImageProperties {
        try data.withUnsafeBytes { bytes in
            try GIFFileReader.read(bytes) { reader in
                var control = GIFFrameDecoder.GraphicControl()
                var loopCount: Int?
                var opacity: CanvasOpacity?
                var durations: [Double] = []
                while true {
                    guard reader.remainingByteCount > 0 else {
                        throw ImageError(.badImageData, "GIF: the data ends after \(durations.count) frames, without a trailer")
                    }
                    switch try reader.nextRecord() {
                    case .trailer:
                        guard let opacity else { throw ImageError(.badImageData, "GIF: the file holds no image") }
                        let isStill = durations.count == 1
                        return ImageProperties(
                            format: .gif, size: opacity.canvas, frameCount: durations.count,
                            loopCount: isStill ? 1 : (loopCount ?? 1), hasAlpha: opacity.hasShownTransparency,
                            frameDurations: isStill ? [] : durations)
                    case .extension(let label, let blocks):
                        GIFFrameDecoder.interpret(extension: label, blocks: blocks, control: &control, loopCount: &loopCount)
                    case .image(let descriptor):
                        if opacity == nil {
                            let screen = reader.screenSize
                            let canvas = screen.area > 0 ? screen : GIFFrameDecoder.extent(of: descriptor.rect)
                            // The decoder's refusal of an empty canvas; no pixel limit, nothing is allocated here.
                            try DecodeLimits(maxPixels: .max).check(canvas)
                            opacity = CanvasOpacity(canvas: canvas)
                        }
                        opacity?.draw(rect: descriptor.rect, declaresTransparency: control.transparentIndex != nil,
                                      disposal: control.disposal.canvasDisposal)
                        durations.append(GIFFrameDecoder.duration(control.delayCentiseconds))
                        control = GIFFrameDecoder.GraphicControl()
                        try reader.skipImageData()
                    }
                }
            }
        }
    }
}
