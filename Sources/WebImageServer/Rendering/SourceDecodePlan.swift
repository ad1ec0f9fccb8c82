import WebImage

/// How much of a source one request needs decoded, worked out from its headers before a pixel is decoded: only
/// the frames the answer keeps, and no more pixels than its geometry uses (libvips's "shrink on load", which
/// imgproxy relies on). A JPEG then shrinks while decoding (TurboJPEG's 1/2, 1/4 and 1/8 scales skip most of
/// the DCT work) and every decoder averages down to the size asked, so the renderer resamples a few hundred
/// thousand pixels instead of millions.
struct SourceDecodePlan: Sendable, Equatable {
    /// What the decoder is asked for.
    var decodeOptions: DecodeOptions
    /// The source's size upright (as stored with `auto_rotate:0`) and after the `rotate` option: the geometry the
    /// request's ``ResizePlan`` is worked out on, whatever size the decoder delivers.
    var geometry: PixelSize
    /// Whether the decoder is asked for the one frame the URL names. Coders that can pick a frame (GIF, APNG,
    /// WebP, documents, TIFF, BMP and more) deliver just that one, without keeping the frames before it or
    /// decoding those after; a coder that cannot delivers every frame, for the renderer to pick from.
    var picksFrame: Bool
    /// Whether the decoder is asked for the source's embedded thumbnail (`enforce_thumbnail` on a HEIC or AVIF
    /// source). The headers do not give its size, so it is decoded whole and the geometry is then the decoded
    /// image's, not ``geometry``: imgproxy works on the thumbnail as if it were the source.
    var usesEmbeddedThumbnail: Bool

    /// The answer formats written with more than 8 bits a sample when the image has them.
    static let deepFormats: Set<OutputFormat> = [.png, .avif, .jxl]

    /// The formats whose embedded thumbnails `enforce_thumbnail` uses, as in imgproxy.
    static let embeddedThumbnailFormats: Set<ImageFormat> = [.heic, .heif, .avif]

    /// The plan for a source described by `properties`, answered in `output`.
    /// - Throws: ``ProxyError``: 400 for a frame the source does not have, 422 for an animation over
    ///   `maximumFrames` that would be answered whole.
    init(properties: ImageProperties, options: ProcessingOptions, output: OutputFormat, limits: DecodeLimits,
         maximumFrames: Int) throws(ProxyError) {
        var decoding = DecodeOptions(limits: limits)
        if let index = options.frame {
            guard index < properties.frameCount else {
                throw ProxyError.invalidURL("frame \(index) does not exist: the source has \(properties.frameCount)")
            }
            decoding.frameIndex = index
            // The first frame is what every animated decoder can stop after (not all of them can pick another).
            decoding.firstFrameOnly = index == 0
        } else if !output.holdsAnimation {
            decoding.firstFrameOnly = true
        } else if properties.frameCount > maximumFrames {
            // Refused from the header: decoding thousands of frames first would be the work the limit prevents.
            throw ProxyError(status: 422, "the source has \(properties.frameCount) frames, over the limit of "
                             + "\(maximumFrames)")
        }
        // imgproxy converts to sRGB and strips the profile unless `strip_color_profile:0` asks to keep the
        // samples and the profile, which the encoders then write. An answer in a format that cannot carry a
        // profile (GIF, BMP, ICO, TIFF here) is converted all the same: kept samples without their profile
        // would show the wrong colours.
        let keepsProfile = options.stripColorProfile == false && MetadataStripping.carryingFormats.contains(output)
        decoding.colorHandling = keepsProfile ? .original : .sRGB
        decoding.readsMetadata = MetadataStripping.keepsAny(options, output: output)
        // Deep samples only where the answer can hold them; the renderer then keeps them through every step.
        decoding.keepsHighBitDepth = options.preserveHDR == true && Self.deepFormats.contains(output)
        // `auto_rotate:0` keeps the pixels as stored: the geometry is then the stored size.
        decoding.applyOrientation = options.autoRotate ?? true
        let decoded = decoding.applyOrientation
            ? properties.size : properties.orientation.displayedSize(of: properties.size)
        let turned = options.rotate == 90 || options.rotate == 270
        geometry = turned ? decoded.transposed : decoded
        picksFrame = options.frame != nil
        usesEmbeddedThumbnail = options.enforceThumbnail == true
            && Self.embeddedThumbnailFormats.contains(properties.format)
        decoding.prefersEmbeddedThumbnail = usesEmbeddedThumbnail
        // A trimmed source is decoded whole: how much is cut, and so the geometry, is known only from its pixels.
        // Trimming applies to stills only (one frame rendered).
        let trims = options.trim != nil
            && (decoding.firstFrameOnly || options.frame != nil || properties.frameCount <= 1)
        if !trims, !usesEmbeddedThumbnail, let needed = Self.reducedSize(geometry: geometry, options: options) {
            decoding.thumbnailPixelSize = turned ? needed.transposed : needed
            // Exactly this size: it has the source's aspect ratio already, and fitting would round it again.
            decoding.preserveAspectRatio = false
        }
        decodeOptions = decoding
    }

    /// The smallest size (in the axes of `geometry`) that still gives the request every pixel its scaling needs,
    /// or `nil` when that is the whole source: the scale from the (cropped) source to the scaled size, applied
    /// to the whole source, rounded up. Never used to enlarge: a result larger than its source is scaled up from
    /// the full decode. Nor for a source crop placed by offsets in pixels: those count pixels of the full source.
    static func reducedSize(geometry: PixelSize, options: ProcessingOptions) -> PixelSize? {
        let plan = ResizePlan(source: geometry, options: options)
        if let crop = plan.sourceCrop, crop.gravity.anchor != .focusPoint,
           abs(crop.gravity.x) >= 1 || abs(crop.gravity.y) >= 1 {
            return nil
        }
        let working = plan.sourceCrop?.size ?? geometry
        let scaleX = Double(plan.scaledSize.width) / Double(working.width)
        let scaleY = Double(plan.scaledSize.height) / Double(working.height)
        guard scaleX < 1, scaleY < 1 else { return nil }
        let needed = PixelSize(width: min(geometry.width, Int((Double(geometry.width) * scaleX).rounded(.up))),
                               height: min(geometry.height, Int((Double(geometry.height) * scaleY).rounded(.up))))
        return needed == geometry ? nil : needed
    }
}

extension ResizePlan.CropStep {
    /// This crop, worked out on a source of `geometry`, for the same source decoded at `size`: the kept area
    /// scales with the source (at least one pixel, never more than there is).
    func scaled(from geometry: PixelSize, to size: PixelSize) -> ResizePlan.CropStep {
        guard geometry != size else { return self }
        func side(_ kept: Int, _ full: Int, _ reduced: Int) -> Int {
            max(1, min(reduced, Int((Double(kept) * Double(reduced) / Double(full)).rounded())))
        }
        return ResizePlan.CropStep(size: PixelSize(width: side(self.size.width, geometry.width, size.width),
                                                   height: side(self.size.height, geometry.height, size.height)),
                                   gravity: gravity)
    }
}
