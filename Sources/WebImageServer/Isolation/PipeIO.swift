import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-buffer reads and writes on a pipe, optionally against a deadline: the parent gives every exchange with a
/// helper a deadline (a helper that stops reading or writing is then killed), the helper blocks without one.
enum PipeIO {
    /// Why a transfer stopped.
    enum Failure: Error {
        /// The other end closed the pipe (the helper died, or the parent went away).
        case closed
        /// The deadline passed first.
        case deadline
        /// A system call failed with this `errno`.
        case system(Int32)
    }

    /// Writes every byte of `buffer`. The descriptor should be non-blocking when `deadline` is given, so that a
    /// full pipe makes the write wait in `poll`, where the deadline is kept.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer,
                         deadline: ContinuousClock.Instant?) throws(Failure) {
        var offset = 0
        while offset < buffer.count {
            try wait(for: fd, events: Int16(POLLOUT), deadline: deadline)
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno != EINTR, errno != EAGAIN {
                throw errno == EPIPE ? Failure.closed : Failure.system(errno)
            }
        }
    }

    static func writeAll(_ fd: Int32, _ data: Data, deadline: ContinuousClock.Instant?) throws(Failure) {
        let result: Result<Void, Failure> = data.withUnsafeBytes { bytes in
            Result { () throws(Failure) in try writeAll(fd, bytes, deadline: deadline) }
        }
        try result.get()
    }

    /// Fills `buffer` from the pipe.
    static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer,
                     deadline: ContinuousClock.Instant?) throws(Failure) {
        var offset = 0
        while offset < buffer.count {
            try wait(for: fd, events: Int16(POLLIN), deadline: deadline)
            let count = read(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if count > 0 {
                offset += count
            } else if count == 0 {
                throw .closed
            } else if errno != EINTR, errno != EAGAIN {
                throw .system(errno)
            }
        }
    }

    /// Reads exactly `count` bytes.
    static func readExactly(_ fd: Int32, count: Int, deadline: ContinuousClock.Instant?) throws(Failure) -> Data {
        var data = Data(count: count)
        let result: Result<Void, Failure> = data.withUnsafeMutableBytes { bytes in
            Result { () throws(Failure) in try readAll(fd, into: bytes, deadline: deadline) }
        }
        try result.get()
        return data
    }

    /// One `UInt32`-length-prefixed header, refused when longer than `maximum`.
    static func readHeader(_ fd: Int32, maximum: Int, deadline: ContinuousClock.Instant?) throws -> Data {
        let prefix = try readExactly(fd, count: 4, deadline: deadline)
        let length = prefix.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard length <= maximum else { throw HelperProtocolError("a header of \(length) bytes") }
        return try readExactly(fd, count: length, deadline: deadline)
    }

    /// Waits until `fd` is ready for `events` (a closed peer counts as ready: the next call reports it).
    private static func wait(for fd: Int32, events: Int16, deadline: ContinuousClock.Instant?) throws(Failure) {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { throw .deadline }
                let (seconds, attoseconds) = left.components
                timeout = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .system(errno) }
        }
    }
}
