import CJXL
import WebImage

/// One libjxl decoder fed a whole file, owned for the length of a decode or header read and destroyed with this
/// object, whatever path leaves the read (a thrown error included).
///
/// Orientation is always kept as stored (`JxlDecoderSetKeepOrientation`): libjxl 0.7 would otherwise report the
/// turned size and orientation 1, hiding the declared tag. Turning the pixels is left to
/// ``DecodeOptions/finish(_:sourceSize:orientation:)``, as in every other coder, so that
/// ``DecodeOptions/applyOrientation`` and ``Image/orientation`` mean the same thing for JPEG XL.
///
/// Not `Sendable`: it lives on the stack of one call, over input memory that outlives it.
final class JXLDecoderHandle {
    let decoder: OpaquePointer

    /// A decoder over `input`, which must stay valid until this handle is released, reporting `events`.
    init(input: UnsafeRawBufferPointer, events: [JxlDecoderStatus]) throws {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), !input.isEmpty else {
            throw ImageError(.badImageData, "JPEG XL: the data is empty")
        }
        guard let decoder = JxlDecoderCreate(nil) else {
            throw ImageError(.imageTooLarge, "JPEG XL: libjxl could not allocate a decoder")
        }
        self.decoder = decoder
        let mask = events.reduce(0) { $0 | Int32($1.rawValue) }
        guard JxlDecoderSubscribeEvents(decoder, mask) == JXL_DEC_SUCCESS,
              JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
              // Associated (premultiplied) alpha comes back straight, as PixelBuffer wants.
              JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
              JxlDecoderSetInput(decoder, base, input.count) == JXL_DEC_SUCCESS
        else {
            throw ImageError(.unsupportedFormat, "JPEG XL: libjxl refused the decoder settings")
        }
        // The whole file is here: running out of input is truncation, not a reason to wait.
        JxlDecoderCloseInput(decoder)
    }

    deinit { JxlDecoderDestroy(decoder) }

    /// Runs the decoder to its next event.
    func next() -> JxlDecoderStatus { JxlDecoderProcessInput(decoder) }

    /// The basic info, available from the ``JXL_DEC_BASIC_INFO`` event on.
    func basicInfo() throws -> JxlBasicInfo {
        var info = JxlBasicInfo()
        guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
            throw ImageError(.badImageData, "JPEG XL: the image header cannot be read")
        }
        return info
    }

    /// The current frame's header, available from a ``JXL_DEC_FRAME`` event until the frame is done.
    func frameHeader() throws -> JxlFrameHeader {
        var header = JxlFrameHeader()
        guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else {
            throw ImageError(.badImageData, "JPEG XL: a frame header cannot be read")
        }
        return header
    }

    /// Asks for 8-bit sRGB output. Only images stored in XYB (lossy) can be converted, and for them libjxl
    /// would otherwise pick linear sRGB when the file carries an ICC profile; others keep their own space.
    /// Valid right after the ``JXL_DEC_COLOR_ENCODING`` event.
    func preferSRGB(gray: Bool) {
        var encoding = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&encoding, gray ? JXL_TRUE : JXL_FALSE)
        // A refusal leaves the file's own profile, which still decodes: not worth failing over.
        _ = JxlDecoderSetPreferredColorProfile(decoder, &encoding)
    }

    /// Skips the next `count` displayed frames without writing their pixels.
    func skipFrames(_ count: Int) { JxlDecoderSkipFrames(decoder, count) }

    /// Points the current frame's output at `buffer`, which must hold exactly the frame in `format`.
    func setImageOut(_ buffer: UnsafeMutableRawBufferPointer, format: JxlPixelFormat) throws {
        var format = format
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == buffer.count,
              JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS
        else {
            throw ImageError(.badImageData, "JPEG XL: the frame does not fit the image size (\(needed) bytes)")
        }
    }

    /// The error for a status that ends a read: corrupt or cut data. `action` says what was being read.
    static func error(for status: JxlDecoderStatus, while action: String) -> ImageError {
        switch status {
        case JXL_DEC_NEED_MORE_INPUT:
            ImageError(.badImageData, "JPEG XL: the data ends early, while \(action)")
        case JXL_DEC_ERROR:
            ImageError(.badImageData, "JPEG XL: the data is corrupt, found while \(action)")
        default:
            ImageError(.badImageData, "JPEG XL: unexpected decoder event \(status.rawValue) while \(action)")
        }
    }

    /// Interleaved 8-bit RGBA, rows tightly packed: ``PixelBuffer``'s layout.
    static let rgba8 = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN,
                                      align: 0)
    /// Interleaved RGBA of 16 bits a sample, full range, in the machine's byte order.
    static let rgba16 = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN,
                                       align: 0)
}
