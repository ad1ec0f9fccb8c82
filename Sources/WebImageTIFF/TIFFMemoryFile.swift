import CTIFF
import Foundation
import WebImage

/// An open libtiff handle over bytes in memory (`TIFFClientOpenExt` with read, seek, size and map callbacks),
/// with libtiff's errors and warnings collected per handle instead of printed to stderr.
///
/// libtiff 4.5's per-open handlers (`TIFFOpenOptionsSetErrorHandlerExtR`) are used rather than the
/// process-global `TIFFSetErrorHandler`, so decoding here never changes what another libtiff user in the process
/// sees. The bytes must outlive the handle: use it only inside ``withFile(_:_:)``.
final class TIFFMemoryFile {
    /// The read position and the messages libtiff reported; reached from the C callbacks through the client
    /// handle pointer, so it is a class with a stable address.
    final class State {
        let base: UnsafeRawPointer?
        let count: Int
        var offset = 0
        /// The first few errors, in order: libtiff can report one problem several times.
        var errors: [String] = []

        init(_ bytes: UnsafeRawBufferPointer) {
            base = bytes.baseAddress
            count = bytes.count
        }

        func record(_ message: String) {
            if errors.count < 4 { errors.append(message) }
        }
    }

    /// libtiff allocates one strip or tile buffer at a time; no legal image we accept needs one larger than this
    /// (a whole 89 Mpx frame at 16 bits × 4 samples), and a header lying about its strip sizes hits it instead
    /// of the allocator.
    static let maximumSingleAllocation = 768 << 20

    let tiff: OpaquePointer
    let state: State

    private init(tiff: OpaquePointer, state: State) {
        self.tiff = tiff
        self.state = state
    }

    /// Opens `bytes` as a TIFF and runs `body` with it; the handle is closed afterwards.
    static func withFile<R>(_ bytes: UnsafeRawBufferPointer, _ body: (TIFFMemoryFile) throws -> R) throws -> R {
        guard bytes.count >= 8 else { throw ImageError(.badImageData, "TIFF: the data ends inside the header") }
        let state = State(bytes)
        // `state` stays alive until the end of this function: the handle is closed before it returns.
        let context = Unmanaged.passUnretained(state).toOpaque()
        guard let options = TIFFOpenOptionsAlloc() else {
            throw ImageError(.imageTooLarge, "TIFF: cannot allocate libtiff's options")
        }
        defer { TIFFOpenOptionsFree(options) }
        TIFFOpenOptionsSetErrorHandlerExtR(options, tiffErrorHandler, context)
        TIFFOpenOptionsSetWarningHandlerExtR(options, tiffWarningHandler, context)
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(maximumSingleAllocation))
        guard let tiff = TIFFClientOpenExt(
            "memory", "r", context, tiffRead, tiffWrite, tiffSeek, tiffClose, tiffSize, tiffMap, tiffUnmap, options)
        else {
            throw ImageError(.badImageData, "TIFF: \(state.errors.first ?? "libtiff cannot open the data")")
        }
        let file = TIFFMemoryFile(tiff: tiff, state: state)
        defer { TIFFClose(tiff) }
        try file.checkErrors("reading the first directory")
        return try withExtendedLifetime(state) { try body(file) }
    }

    /// Throws when libtiff has reported an error so far. libtiff carries on past many (a tag whose value lies
    /// beyond the end of a cut file, a directory chain that loops) with defaults that give wrong pixels or a
    /// wrong page count; a file it complained about is treated as damaged.
    func checkErrors(_ action: String) throws {
        if !state.errors.isEmpty { throw error(.badImageData, action) }
    }

    /// An ``ImageError`` that carries libtiff's first message, if it gave one.
    func error(_ code: ImageError.Code, _ fallback: String) -> ImageError {
        ImageError(code, "TIFF: \(state.errors.first.map { "\(fallback): \($0)" } ?? fallback)")
    }
}

// The callbacks are plain C functions (no captures): everything they need comes through the client handle.

private func state(_ handle: thandle_t?) -> TIFFMemoryFile.State? {
    handle.map { Unmanaged<TIFFMemoryFile.State>.fromOpaque($0).takeUnretainedValue() }
}

private let tiffRead: TIFFReadWriteProc = { handle, buffer, size in
    guard let state = state(handle), let buffer, let base = state.base, size > 0 else { return 0 }
    let available = max(0, state.count - state.offset)
    let length = min(Int(size), available)
    if length > 0 { buffer.copyMemory(from: base + state.offset, byteCount: length) }
    state.offset += length
    return tmsize_t(length)
}

private let tiffWrite: TIFFReadWriteProc = { _, _, _ in 0 }  // opened read-only

private let tiffSeek: TIFFSeekProc = { handle, offset, whence in
    guard let state = state(handle) else { return toff_t(bitPattern: -1) }
    let origin: Int
    switch whence {
    case SEEK_SET: origin = 0
    case SEEK_CUR: origin = state.offset
    case SEEK_END: origin = state.count
    default: return toff_t(bitPattern: -1)
    }
    // toff_t is unsigned: a "negative" relative seek arrives as a huge value and wraps back as Int64.
    let (target, overflow) = Int64(origin).addingReportingOverflow(Int64(bitPattern: offset))
    guard !overflow, target >= 0, target <= Int64(Int.max) else { return toff_t(bitPattern: -1) }
    state.offset = Int(target)  // past the end is allowed; reads there return nothing
    return toff_t(target)
}

private let tiffClose: TIFFCloseProc = { _ in 0 }

private let tiffSize: TIFFSizeProc = { handle in toff_t(state(handle)?.count ?? 0) }

/// Hands libtiff the bytes themselves, so strips are decoded from them without a copy (read-only mode).
private let tiffMap: TIFFMapFileProc = { handle, base, size in
    guard let state = state(handle), let pointer = state.base, let base, let size else { return 0 }
    base.pointee = UnsafeMutableRawPointer(mutating: pointer)
    size.pointee = toff_t(state.count)
    return 1
}

private let tiffUnmap: TIFFUnmapFileProc = { _, _, _ in }

private let tiffErrorHandler: TIFFErrorHandlerExtR = { _, context, module, format, arguments in
    state(context)?.record(formatMessage(module, format, arguments))
    return 1  // handled: libtiff does not call the global handler (stderr)
}

/// Warnings (unknown tags, odd tag types and the like) are not failures and are dropped, except libtiff's
/// "IO error during reading of <tag>": a tag value lying past the end of the data, which is what a cut download
/// looks like when the directory sits at the end of the file (as ImageMagick writes it).
private let tiffWarningHandler: TIFFErrorHandlerExtR = { _, context, module, format, arguments in
    let message = formatMessage(module, format, arguments)
    if message.contains("IO error") { state(context)?.record(message) }
    return 1
}

private func formatMessage(_ module: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?,
                           _ arguments: CVaListPointer?) -> String {
    guard let format else { return "unknown error" }
    var text = String(cString: format)
    if let arguments {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    guard let module else { return text }
    return "\(String(cString: module)): \(text)"
}
