import CSpng
import CTurboJPEG
import CWebP
import Foundation
import WebImage

/// Our encoders beside their C libraries called directly at the same settings (issue 17): JPEG quality 85 4:2:0,
/// lossy WebP quality 80 (method 4, libwebp's default), PNG at libspng's default compression, all from opaque RGBA.
enum EncodeSuite {
    static func run(data folder: URL) throws {
        let photo = try ImageCoders.shared.decode(try Data(contentsOf: folder.appendingPathComponent("photo-12mp.jpg")))
        let frame = try ImageCoders.shared.decode(try Data(contentsOf: folder.appendingPathComponent("photo-1080p.webp")))
        let jpeg = EncodeOptions(quality: 0.85)
        try compare("12 MP to JPEG, quality 85", ours: { _ = try ImageCoders.shared.encode(photo, as: .jpeg, options: jpeg) },
                reference: "TurboJPEG (tjCompress2)", direct: { turboJPEG(photo.pixels) })
        let webp = EncodeOptions(quality: 0.8)
        try compare("1080p to lossy WebP, quality 80", ours: { _ = try ImageCoders.shared.encode(frame, as: .webp, options: webp) },
                reference: "libwebp (WebPEncodeRGBA)", direct: { webP(frame.pixels) })
        let rgb = frame.pixels.bytes.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
        try compare("1080p to PNG (RGB)", ours: { _ = try ImageCoders.shared.encode(frame, as: .png, options: EncodeOptions()) },
                reference: "libspng (RGB rows given)", direct: { spng(rgb, size: frame.size) }, runs: 5)
        try gif(data: folder)
    }

    /// GIF: median cut to 256 colours and Floyd–Steinberg dithering, on a photo and on the frame a proxy answers
    /// for `w:200/frame:0` of the panning GIF; Pillow's `save(format="GIF")` (the same two steps) runs beside them
    /// in `pillow_bench.py encode`.
    static func gif(data folder: URL) throws {
        let photoFile = folder.appendingPathComponent("photo-800x600.jpg")
        let photo = try ImageCoders.shared.decode(try Data(contentsOf: photoFile))
        let pan = try Data(contentsOf: folder.appendingPathComponent("pan-640x480-20.gif"))
        let thumbnail = try ImageCoders.shared.decode(
            pan, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 150), firstFrameOnly: true))
        let cases = [("800x600 photo to GIF", photo), ("pan-640x480-20.gif frame 0 at 200x150 to GIF", thumbnail)]
        for (name, image) in cases {
            let time = try Timing.median(minimumRuns: 11, minimumSeconds: 0.5) {
                _ = try ImageCoders.shared.encode(image, as: .gif, options: EncodeOptions())
            }
            Measurement(suite: "encode", name: name, implementation: "swift-web-image", value: time, unit: "ms").emit()
        }
    }

    private static func compare(_ name: String, ours: () throws -> Void, reference: String, direct: () -> Void,
                                runs: Int = 11) rethrows {
        // Alternating the two sides, as the machine drifts; the medians of each.
        var (oursTimes, directTimes): ([Double], [Double]) = ([], [])
        for _ in 0..<3 {
            directTimes.append(Timing.median(minimumRuns: runs, minimumSeconds: 0.5, direct))
            oursTimes.append(try Timing.median(minimumRuns: runs, minimumSeconds: 0.5, ours))
        }
        Measurement(suite: "encode", name: name, implementation: "swift-web-image",
                    value: oursTimes.sorted()[1], unit: "ms").emit()
        Measurement(suite: "encode", name: name, implementation: reference, value: directTimes.sorted()[1],
                    unit: "ms").emit()
    }

    private static func turboJPEG(_ pixels: PixelBuffer) {
        guard let handle = tjInitCompress() else { return }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        pixels.withUnsafeBytes { source in
            _ = tjCompress2(handle, source.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(pixels.width),
                            Int32(pixels.bytesPerRow), Int32(pixels.height), Int32(TJPF_RGBA.rawValue), &output, &size,
                            Int32(TJSAMP_420.rawValue), 85, 0)
        }
        tjFree(output)
    }

    private static func webP(_ pixels: PixelBuffer) {
        var output: UnsafeMutablePointer<UInt8>?
        pixels.withUnsafeBytes { source in
            _ = WebPEncodeRGBA(source.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(pixels.width),
                               Int32(pixels.height), Int32(pixels.bytesPerRow), 80, &output)
        }
        WebPFree(output)
    }

    private static func spng(_ rgb: [UInt8], size: PixelSize) {
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { return }
        defer { spng_ctx_free(context) }
        spng_set_option(context, SPNG_ENCODE_TO_BUFFER, 1)
        var header = spng_ihdr(width: UInt32(size.width), height: UInt32(size.height), bit_depth: 8,
                               color_type: UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue), compression_method: 0,
                               filter_method: 0, interlace_method: 0)
        spng_set_ihdr(context, &header)
        rgb.withUnsafeBytes { bytes in
            _ = spng_encode_image(context, bytes.baseAddress, bytes.count, Int32(SPNG_FMT_PNG.rawValue),
                                  Int32(SPNG_ENCODE_FINALIZE.rawValue))
        }
        var length = 0, status: Int32 = 0
        free(spng_get_png_buffer(context, &length, &status))
    }
}
