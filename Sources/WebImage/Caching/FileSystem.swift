#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX calls the disk cache makes, with `EINTR` retried and errors turned into values or
/// `ImageError`s with code `io`. POSIX rather than FileManager: every call here is one system call,
/// symbolic links are never followed, and failures keep their `errno`.
enum FileSystem {
    /// What `stat` says about a path, as far as the cache cares.
    struct Status {
        var size: Int
        var modified: Double
        /// Last change of the inode, in real time: unlike `modified`, no one can set it.
        var changed: Double
        var isRegularFile: Bool
        var isDirectory: Bool
        var device: UInt64
        var inode: UInt64
    }

    /// The message for `errno` code `code`.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Creates `path` and its missing parents.
    static func makeDirectories(_ path: String) throws(ImageError) {
        var components: [Substring] = []
        var prefix = path.hasPrefix("/") ? "/" : ""
        components = path.split(separator: "/")
        for component in components {
            prefix += component
            if mkdir(prefix, 0o777) != 0, errno != EEXIST {
                throw ImageError(.io, "cannot create the folder \(prefix): \(describe(errno))")
            }
            prefix += "/"
        }
        guard status(path)?.isDirectory == true else {
            throw ImageError(.io, "\(path) is not a folder")
        }
    }

    /// `lstat` of `path` (links are not followed); `nil` when it does not exist or cannot be read.
    static func status(_ path: String) -> Status? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Status(info)
    }

    /// `fstat` of an open descriptor.
    static func status(descriptor: Int32) -> Status? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Status(info)
    }

    /// The names in a folder (without `.` and `..`); `nil` when it cannot be opened.
    static func contentsOfDirectory(_ path: String) -> [String]? {
        var names: [String] = []
        let opened = forEachDirectoryEntry(path) { name, _ in names.append(name) }
        return opened ? names : nil
    }

    /// Calls `body` with each name in a folder (without `.` and `..`) and a descriptor of the folder for
    /// ``status(_:in:)``; `false` when the folder cannot be opened.
    @discardableResult
    static func forEachDirectoryEntry(_ path: String, _ body: (String, Int32) -> Void) -> Bool {
        guard let directory = opendir(path) else { return false }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        while let entry = readdir(directory) {
            let name = entryName(entry)
            if name != "." && name != ".." { body(name, descriptor) }
        }
        return true
    }

    /// The name in a `readdir` record, read in place up to its NUL. Never through `entry.pointee`: that copies a
    /// whole `dirent` with its 256-byte name array, while the record in the stream's buffer is only as long as its
    /// name (`d_reclen`), so the copy reads past the buffer's end (AddressSanitizer caught it on the last record).
    static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    /// `lstat` of `name` inside the folder open as `directory`: no walk through the folder's path.
    static func status(_ name: String, in directory: Int32) -> Status? {
        var info = stat()
        guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return Status(info)
    }

    /// Opens a file for reading without following a symbolic link; the descriptor or the `errno`.
    static func openForReading(_ path: String) -> Result<Int32, Errno> {
        while true {
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 { return .success(descriptor) }
            if errno != EINTR { return .failure(Errno(errno)) }
        }
    }

    /// Creates a new file that must not exist yet, for writing.
    static func createExclusively(_ path: String) -> Result<Int32, Errno> {
        while true {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return .success(descriptor) }
            if errno != EINTR { return .failure(Errno(errno)) }
        }
    }

    /// Reads exactly `buffer.count` bytes at `offset`; `false` on an error or an early end of file.
    static func readExactly(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var done = 0
        while done < buffer.count {
            let result = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return false }
            done += result
        }
        return true
    }

    /// Writes all of `bytes`, retrying short writes; the `errno` of a failure.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Errno? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let result = write(descriptor, base + done, bytes.count - done)
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return Errno(result == 0 ? EIO : errno) }
            done += result
        }
        return nil
    }

    /// Appends `count` bytes of `source`, read from `offset`, to `destination` at its current position: copied by
    /// the kernel where it can (Linux's `sendfile` between files, so the bytes never pass through this process),
    /// else through a small buffer. The `errno` of a failure, `EIO` for a source that ends early.
    static func copyRange(from source: Int32, at offset: Int, count: Int, to destination: Int32) -> Errno? {
        var position = off_t(offset)
        var left = count
        #if os(Linux)
        while left > 0 {
            let sent = sendfile(destination, source, &position, left)
            if sent < 0, errno == EINTR { continue }
            // A file system that cannot do it at all says so on the first call: copy by hand instead.
            if sent < 0, errno == EINVAL || errno == ENOSYS, left == count { break }
            guard sent > 0 else { return Errno(sent == 0 ? EIO : errno) }
            left -= sent
        }
        #endif
        guard left > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: min(left, 1 << 16))
        while left > 0 {
            let chunk = min(left, buffer.count)
            let read = buffer.withUnsafeMutableBytes {
                readExactly(source, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<chunk]), at: Int(position))
            }
            guard read else { return Errno(EIO) }
            if let failure = buffer.withUnsafeBytes({ writeAll(destination, UnsafeRawBufferPointer(rebasing: $0[0..<chunk])) }) {
                return failure
            }
            position += off_t(chunk)
            left -= chunk
        }
        return nil
    }

    /// Sets a file's modification time (the cache's last-access time); the access time gets the same value, as
    /// nothing else reads it.
    @discardableResult
    static func setModificationTime(_ descriptor: Int32, to time: Double) -> Bool {
        var times = [timespec(time), timespec(time)]
        return futimens(descriptor, &times) == 0
    }

    /// Sets the modification time of the file at `path` (links are not followed).
    @discardableResult
    static func setModificationTime(_ path: String, to time: Double) -> Bool {
        var times = [timespec(time), timespec(time)]
        return utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Closes a descriptor; the `errno` when the close reports a failed write.
    @discardableResult
    static func closeFile(_ descriptor: Int32) -> Errno? {
        close(descriptor) == 0 ? nil : Errno(errno)
    }

    /// Renames atomically; the `errno` of a failure.
    static func renameFile(_ from: String, to: String) -> Errno? {
        rename(from, to) == 0 ? nil : Errno(errno)
    }

    /// Removes a file (or link); `true` when it was there.
    @discardableResult
    static func removeFile(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Removes `name` inside the folder open as `directory` (links are removed, never followed).
    @discardableResult
    static func removeFile(_ name: String, in directory: Int32) -> Bool {
        unlinkat(directory, name, 0) == 0
    }

    /// Opens a folder for `flock` and `*at` calls; `nil` when it does not exist or is not a folder.
    static func openDirectory(_ path: String) -> Int32? {
        while true {
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { return nil }
        }
    }

    /// Opens (creating it when absent) a small file that is updated in place.
    static func openForUpdate(_ path: String) -> Result<Int32, Errno> {
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return .success(descriptor) }
            if errno != EINTR { return .failure(Errno(errno)) }
        }
    }

    /// `flock`: an advisory lock the kernel drops when the process dies, however it dies. With `wait` false,
    /// returns `false` at once when another descriptor holds a conflicting lock.
    static func lock(_ descriptor: Int32, exclusive: Bool, wait: Bool = true) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while true {
            if flock(descriptor, operation) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Releases a `flock`.
    static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }

    /// Writes all of `bytes` at `offset` in one `pwrite` when the kernel takes them whole (it does for a few
    /// dozen bytes); the `errno` of a failure.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Errno? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let result = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + done))
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return Errno(result == 0 ? EIO : errno) }
            done += result
        }
        return nil
    }
}

/// An `errno` value.
struct Errno: Error, Equatable, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { FileSystem.describe(code) }
}

extension FileSystem.Status {
    fileprivate init(_ info: stat) {
        size = Int(info.st_size)
        #if canImport(Darwin)
        modified = Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9
        changed = Double(info.st_ctimespec.tv_sec) + Double(info.st_ctimespec.tv_nsec) / 1e9
        #else
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        changed = Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9
        #endif
        isRegularFile = info.st_mode & S_IFMT == S_IFREG
        isDirectory = info.st_mode & S_IFMT == S_IFDIR
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

extension timespec {
    fileprivate init(_ seconds: Double) {
        let whole = seconds.rounded(.down)
        self.init(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    }
}
