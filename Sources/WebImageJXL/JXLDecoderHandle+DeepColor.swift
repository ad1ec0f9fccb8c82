import CJXL
import WebImage

extension JXLDecoderHandle {
    /// Decodes the current frame as RGBA16 into a temporary (8 bytes a pixel) and takes it to RGBA8 in `output`
    /// through `conversion`, so that a deep file's colour is converted from all its bits. `frame` (from 1) names
    /// the frame in errors.
    func decodeFrame(converting conversion: DeepColorConversion, into output: UnsafeMutableRawBufferPointer,
                     frame: Int) throws {
        let count = output.count / PixelBuffer.bytesPerPixel
        let wide = UnsafeMutableRawBufferPointer.allocate(byteCount: count * 8, alignment: 16)
        defer { wide.deallocate() }
        try setImageOut(wide, format: Self.rgba16)
        let done = next()
        guard done == JXL_DEC_FULL_IMAGE else { throw Self.error(for: done, while: "decoding frame \(frame)") }
        guard let from = wide.baseAddress, let to = output.baseAddress else { return }
        conversion.convert(UnsafeRawPointer(from), into: to, count: count)
    }
}
