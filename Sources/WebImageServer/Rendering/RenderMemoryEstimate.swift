import WebImage

/// The pixel memory one render holds at its peak, worked out from the source's header and the plan before anything
/// is decoded: the decoded frames (at the size the plan decodes them, 4 bytes a pixel, 12 when 16-bit samples are
/// kept beside the 8-bit ones), the result's frames, and one working copy of a decoded frame (a blur's or a
/// sharpen's output). A render over the server's budget is refused (422) before it allocates any of it, so that
/// `--workers` renders can never hold more than `--workers` budgets of pixels.
enum RenderMemoryEstimate {
    /// Bytes of pixels the render of a source described by `properties`, planned as `plan`, holds at once.
    static func bytes(properties: ImageProperties, plan: SourceDecodePlan, options: ProcessingOptions) -> Int {
        let decoding = plan.decodeOptions
        let frames = decoding.firstFrameOnly || decoding.frameIndex != nil ? 1 : max(1, properties.frameCount)
        let bytesPerPixel = decoding.keepsHighBitDepth ? 12 : 4
        // A reduced decode is at least the size asked and less than twice it on each side (a JPEG's DCT scales),
        // never more than the source.
        var decoded = properties.size.area
        if let target = decoding.thumbnailPixelSize {
            decoded = min(decoded, target.area.multipliedReportingOverflow(by: 4).partialValue)
        }
        // A larger result is refused by the renderer, with its own reason, before anything is drawn.
        let output = min(ResizePlan(source: plan.geometry, options: options).outputSize.area,
                         ProxyRenderer.maximumResultPixels)
        let perFrame = decoded.addingReportingOverflow(output).partialValue
        let (all, overflow) = perFrame.multipliedReportingOverflow(by: frames)
        guard !overflow else { return .max }
        let (total, overflowAgain) = all.addingReportingOverflow(decoded).partialValue
            .multipliedReportingOverflow(by: bytesPerPixel)
        return overflowAgain ? .max : total
    }
}
