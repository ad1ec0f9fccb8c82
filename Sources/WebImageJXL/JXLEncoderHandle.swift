import CJXL
import WebImage

/// One libjxl encoder and its frame settings, destroyed with this object. Not `Sendable`: it lives on the stack
/// of one ``JXLEncoder/encode(_:loopCount:options:effort:)`` call.
final class JXLEncoderHandle {
    private let encoder: OpaquePointer
    /// Owned by `encoder` and freed with it.
    private let settings: OpaquePointer

    init() throws {
        guard let encoder = JxlEncoderCreate(nil) else {
            throw ImageError(.imageTooLarge, "JPEG XL: libjxl could not allocate an encoder")
        }
        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            JxlEncoderDestroy(encoder)
            throw ImageError(.imageTooLarge, "JPEG XL: libjxl could not allocate frame settings")
        }
        self.encoder = encoder
        self.settings = settings
    }

    deinit { JxlEncoderDestroy(encoder) }

    /// Sets the image header and colour: `bits` a sample (8 unless a deep image says more), alpha if `alpha`, an
    /// animation header if `animation`; the samples are sRGB unless `colorProfile` says what they are (written as
    /// the file's ICC profile).
    func setImage(size: PixelSize, bits: UInt32 = 8, alpha: Bool, lossless: Bool, animation: JxlAnimationHeader?,
                  colorProfile: ColorProfile?) throws {
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(size.width)
        info.ysize = UInt32(size.height)
        info.bits_per_sample = bits
        info.num_color_channels = 3
        info.num_extra_channels = alpha ? 1 : 0
        info.alpha_bits = alpha ? bits : 0
        // Lossless needs the pixels kept in their own (sRGB) space rather than XYB.
        info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE
        if let animation {
            info.have_animation = JXL_TRUE
            info.animation = animation
        }
        try check(JxlEncoderSetBasicInfo(encoder, &info), "setting the image header")
        if alpha {
            var channel = JxlExtraChannelInfo()
            JxlEncoderInitExtraChannelInfo(JXL_CHANNEL_ALPHA, &channel)
            channel.bits_per_sample = bits
            try check(JxlEncoderSetExtraChannelInfo(encoder, 0, &channel), "describing the alpha channel")
        }
        if let colorProfile {
            try colorProfile.iccData.withUnsafeBytes { icc in
                try check(JxlEncoderSetICCProfile(encoder, icc.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                  icc.count), "setting the ICC profile")
            }
            return
        }
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&colour, JXL_FALSE)
        try check(JxlEncoderSetColorEncoding(encoder, &colour), "setting sRGB colour")
    }

    /// Writes `metadata` as container boxes before the codestream: EXIF in an `Exif` box (behind the four-byte
    /// offset of its TIFF header, zero here) and XMP in an `xml ` box. JPEG XL has no place for IPTC.
    func addMetadata(_ metadata: ImageMetadata) throws {
        var boxes: [(String, [UInt8])] = []
        if let exif = metadata.exif { boxes.append(("Exif", [0, 0, 0, 0] + Array(exif))) }
        if let xmp = metadata.xmp { boxes.append(("xml ", Array(xmp))) }
        guard !boxes.isEmpty else { return }
        try check(JxlEncoderUseBoxes(encoder), "enabling metadata boxes")
        for (type, contents) in boxes {
            let name = Array(type.utf8).map { CChar(bitPattern: $0) }
            var boxType: JxlBoxType = (name[0], name[1], name[2], name[3])
            try withUnsafePointer(to: &boxType) { typePointer in
                try typePointer.withMemoryRebound(to: CChar.self, capacity: 4) { typeName in
                    try check(JxlEncoderAddBox(encoder, typeName, contents, contents.count, JXL_FALSE),
                              "adding the \(type) box")
                }
            }
        }
        JxlEncoderCloseBoxes(encoder)
    }

    /// Lossless, or lossy at butteraugli `distance`; `effort` 1 (fastest) to 9.
    func setQuality(lossless: Bool, distance: Float, effort: Int) throws {
        try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)),
                  "setting the effort")
        if lossless {
            try check(JxlEncoderSetFrameLossless(settings, JXL_TRUE), "asking for lossless")
        } else {
            try check(JxlEncoderSetFrameDistance(settings, distance), "setting the distance")
        }
    }

    /// Adds one frame of interleaved samples, `channels` (3 or 4) per pixel, of 8 bits (16 in the machine's byte
    /// order when `sixteenBit`), shown for `ticks`.
    func addFrame(_ samples: UnsafeRawBufferPointer, channels: UInt32, sixteenBit: Bool = false, ticks: UInt32?)
        throws
    {
        if let ticks {
            var header = JxlFrameHeader()
            JxlEncoderInitFrameHeader(&header)
            header.duration = ticks
            try check(JxlEncoderSetFrameHeader(settings, &header), "setting a frame duration")
        }
        var format = JxlPixelFormat(num_channels: channels, data_type: sixteenBit ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        try check(JxlEncoderAddImageFrame(settings, &format, samples.baseAddress, samples.count), "adding a frame")
    }

    /// Closes the input and collects the whole file.
    func finish() throws -> [UInt8] {
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 16_384)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS:
                return Array(output[..<written])
            case JXL_ENC_NEED_MORE_OUTPUT:
                output.append(contentsOf: repeatElement(0, count: output.count))
            default:
                throw failure("writing the file")
            }
        }
    }

    private func check(_ status: JxlEncoderStatus, _ action: String) throws {
        guard status == JXL_ENC_SUCCESS else { throw failure(action) }
    }

    private func failure(_ action: String) -> ImageError {
        let code = JxlEncoderGetError(encoder)
        // An out-of-memory failure is the only one a caller can act on by asking for less.
        if code == JXL_ENC_ERR_OOM { return ImageError(.imageTooLarge, "JPEG XL: out of memory while \(action)") }
        return ImageError(.badImageData, "JPEG XL: encoding failed (error \(code.rawValue)) while \(action)")
    }
}
