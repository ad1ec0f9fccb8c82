import CGif
import Foundation

/// Writes a GIF89a file into memory through giflib's encoder (`EGifOpen` with a write callback that appends to a
/// growing buffer). Call ``putScreen(size:palette:)`` first, then extensions and images in order, then
/// ``finish()``.
final class GIFFileWriter {
    private var file: UnsafeMutablePointer<GifFileType>?
    private let sink = GIFByteSink()

    init() throws(ImageError) {
        var error: Int32 = 0
        guard let file = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), gifWriteBytes, &error) else {
            throw Self.error(code: error, while: "starting the GIF encoder")
        }
        self.file = file
        // The graphic control and application extensions need GIF89a; giflib would write GIF87a otherwise.
        EGifSetGifVersion(file, true)
    }

    deinit {
        if let file { EGifCloseFile(file, nil) }
    }

    /// Writes the logical screen descriptor with `palette` as the global colour table.
    func putScreen(size: PixelSize, palette: [GIFIndexedImage.Color]) throws(ImageError) {
        try withColorMap(palette) { (file, map) throws(ImageError) in
            try check(EGifPutScreenDesc(file, Int32(size.width), Int32(size.height), 8, 0, map), "writing the header")
        }
    }

    /// Writes a NETSCAPE2.0 application extension: play the animation `loopCount` times (0 = forever).
    func putLoopCount(_ loopCount: Int) throws(ImageError) {
        let file = try openFile()
        let count = UInt16(clamping: loopCount)
        let identifier = Array("NETSCAPE2.0".utf8)
        let loop: [UInt8] = [1, UInt8(count & 0xFF), UInt8(count >> 8)]
        try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE), "writing the loop count")
        try check(EGifPutExtensionBlock(file, Int32(identifier.count), identifier), "writing the loop count")
        try check(EGifPutExtensionBlock(file, Int32(loop.count), loop), "writing the loop count")
        try check(EGifPutExtensionTrailer(file), "writing the loop count")
    }

    /// Writes a graphic control extension for the next image.
    func putGraphicControl(delayCentiseconds: Int, disposal: GIFDisposal, transparentIndex: Int?) throws(ImageError) {
        let file = try openFile()
        var block = GraphicsControlBlock()
        block.DisposalMode = switch disposal {
        case .none: DISPOSE_DO_NOT
        case .background: DISPOSE_BACKGROUND
        case .previous: DISPOSE_PREVIOUS
        }
        block.UserInputFlag = false
        block.DelayTime = Int32(min(max(delayCentiseconds, 0), 0xFFFF))
        block.TransparentColor = transparentIndex.map(Int32.init) ?? NO_TRANSPARENT_COLOR
        var bytes = [UInt8](repeating: 0, count: 4)
        let length = EGifGCBToExtension(&block, &bytes)
        try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(length), bytes), "writing frame timing")
    }

    /// Writes one image at `origin`, with `localPalette` as its own colour table when given (else the global one).
    func putImage(_ image: GIFIndexedImage, at origin: (x: Int, y: Int), localPalette: Bool) throws(ImageError) {
        var indices = image.indices  // giflib masks the line in place
        try withColorMap(localPalette ? image.palette : nil) { (file, map) throws(ImageError) in
            try check(EGifPutImageDesc(file, Int32(origin.x), Int32(origin.y), Int32(image.width),
                                       Int32(image.height), false, map), "writing an image descriptor")
            try indices.withUnsafeMutableBufferPointer { (buffer) throws(ImageError) in
                guard let base = buffer.baseAddress else { return }
                for row in 0..<image.height {
                    try check(EGifPutLine(file, base + row * image.width, Int32(image.width)), "compressing pixels")
                }
            }
        }
    }

    /// Writes the trailer and returns the file's bytes.
    func finish() throws(ImageError) -> Data {
        let file = try openFile()
        self.file = nil
        var error: Int32 = 0
        guard EGifCloseFile(file, &error) == GIF_OK else { throw Self.error(code: error, while: "finishing") }
        return sink.data
    }

    private func openFile() throws(ImageError) -> UnsafeMutablePointer<GifFileType> {
        guard let file else { throw ImageError(.badImageData, "GIF: the encoder was already finished") }
        return file
    }

    /// Calls `body` with a giflib colour map built from `palette` (padded to a power of two), or with `nil`.
    private func withColorMap(
        _ palette: [GIFIndexedImage.Color]?,
        _ body: (UnsafeMutablePointer<GifFileType>, UnsafeMutablePointer<ColorMapObject>?) throws(ImageError) -> Void
    ) throws(ImageError) {
        let file = try openFile()
        guard let palette else { return try body(file, nil) }
        var size = 2
        while size < palette.count { size *= 2 }
        var colors = palette.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
        colors += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - palette.count)
        guard let map = GifMakeMapObject(Int32(size), colors) else {
            throw ImageError(.badImageData, "GIF: cannot make a colour table of \(size) entries")
        }
        defer { GifFreeMapObject(map) }
        try body(file, map)
    }

    private func check(_ status: Int32, _ activity: String) throws(ImageError) {
        guard status == GIF_OK else { throw Self.error(code: file?.pointee.Error ?? 0, while: activity) }
    }

    private static func error(code: Int32, while activity: String) -> ImageError {
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return ImageError(.badImageData, "GIF: \(reason) while \(activity)")
    }
}

/// The growing buffer giflib writes into; reached from the C write callback through `UserData`.
private final class GIFByteSink {
    var data = Data()
}

/// giflib's output function: a plain C function (no captures) that appends to the ``GIFByteSink`` found through
/// the file's `UserData`.
private func gifWriteBytes(
    _ file: UnsafeMutablePointer<GifFileType>?, _ bytes: UnsafePointer<GifByteType>?, _ count: Int32
) -> Int32 {
    guard let file, let userData = file.pointee.UserData else { return 0 }
    guard let bytes, count > 0 else { return count }
    Unmanaged<GIFByteSink>.fromOpaque(userData).takeUnretainedValue().data.append(bytes, count: Int(count))
    return count
}
