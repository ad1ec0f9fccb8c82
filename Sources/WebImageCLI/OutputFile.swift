#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import WebImage

/// Writes a command's output whole or not at all: into a new file beside the destination, renamed over it once
/// every byte is written, so that a failed or killed run never leaves a cut file behind.
///
/// Unlike `Data.write(options: .atomic)`, it does not `fsync`: like `cp`, `djpeg` or `cwebp`, it leaves flushing to
/// the system. A forced flush made a 48 MB raw output wait on the disk for 50 to 400 ms on this project's
/// reference machine, several times the decode itself. (ext4 and XFS flush a file renamed over another before
/// the rename is committed, which covers the crash that matters here.)
enum OutputFile {
    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let suffix = String(UInt32.random(in: .min ... .max), radix: 36)
        let temporary = folder + "/." + url.lastPathComponent + ".webimage-" + suffix
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure(path, errno) }
        var written = 0
        while written < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = errno
                close(descriptor)
                unlink(temporary)
                throw failure(path, error)
            }
            written += count
        }
        guard close(descriptor) == 0 else {
            let error = errno
            unlink(temporary)
            throw failure(path, error)
        }
        guard rename(temporary, path) == 0 else {
            let error = errno
            unlink(temporary)
            throw failure(path, error)
        }
    }

    #if canImport(Glibc)
    private static let systemWrite = Glibc.write
    #else
    private static let systemWrite = Darwin.write
    #endif

    private static func failure(_ path: String, _ code: Int32) -> ImageError {
        ImageError(.io, "cannot write \(path): \(String(cString: strerror(code)))")
    }
}
