import Foundation
import Synchronization

/// Reading and writing one entry file. Stateless: ``DiskCache`` decides where.
enum DiskEntryFile {
    /// What reading an entry file found.
    enum ReadOutcome {
        /// A complete, verified entry.
        case entry(header: DiskEntryHeader, payload: Data?, status: FileSystem.Status)
        /// No such file (another process may have removed it).
        case missing
        /// A file is there but is not a valid entry for the key: the reason, and the file's identity so the
        /// caller deletes that very file and not a fresh one renamed into place since.
        case damaged(reason: String, device: UInt64, inode: UInt64)
        /// A file is there but unused for longer than the age limit: its size and identity, so the caller deletes
        /// that very file.
        case expired(size: Int, device: UInt64, inode: UInt64)
    }

    /// How many header bytes the first read takes: enough for nearly every header, small enough for the stack.
    static let headerProbeLength = 4096

    private static let temporaryCounter = Atomic<Int>(0)

    /// Reads and verifies the entry at `path`, which must be stored under `key` (nil accepts any key).
    /// Without `withPayload` only the header and the file size are checked. `isExpired` sees the file's status
    /// before anything is read from it; `touchTime` decides, from the same status, whether the file's
    /// modification time (its persisted last access) is set, and to what. `operations` counts the system calls
    /// made (a miss costs one, a hit five or six).
    static func read(
        at path: String, key: String?, withPayload: Bool, operations: inout Int,
        isExpired: (FileSystem.Status) -> Bool = { _ in false }, touchTime: (FileSystem.Status) -> Double? = { _ in nil }
    ) -> ReadOutcome {
        let descriptor: Int32
        operations += 1
        switch FileSystem.openForReading(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error):
            // ELOOP: a symbolic link planted under an entry's name. Anything else reads as a miss.
            return error.code == ELOOP ? .damaged(reason: "a symbolic link", device: 0, inode: 0) : .missing
        }
        operations += 2  // fstat and close
        defer { FileSystem.closeFile(descriptor) }
        guard let status = FileSystem.status(descriptor: descriptor) else { return .missing }
        func damaged(_ reason: String) -> ReadOutcome {
            .damaged(reason: reason, device: status.device, inode: status.inode)
        }
        guard status.isRegularFile else { return damaged("not a regular file") }
        if isExpired(status) { return .expired(size: status.size, device: status.device, inode: status.inode) }
        operations += 1
        let probeLength = min(status.size, headerProbeLength)
        let parsed = withUnsafeTemporaryAllocation(byteCount: headerProbeLength, alignment: 8) { probe -> Result<DiskEntryHeader, DiskEntryDamage> in
            let probe = UnsafeMutableRawBufferPointer(rebasing: probe[0..<probeLength])
            guard FileSystem.readExactly(descriptor, into: probe, at: 0) else { return .failure(DiskEntryDamage("unreadable")) }
            return Result { () throws(DiskEntryDamage) -> DiskEntryHeader in
                let (headerLength, payloadLength) = try DiskEntryHeader.declaredLengths(UnsafeRawBufferPointer(probe))
                guard status.size == headerLength + payloadLength else {
                    throw DiskEntryDamage("file is \(status.size) bytes, its header says \(headerLength + payloadLength)")
                }
                if headerLength <= probeLength {
                    return try DiskEntryHeader.decode(UnsafeRawBufferPointer(probe))
                }
                operations += 1
                var whole = [UInt8](repeating: 0, count: headerLength)
                let complete = whole.withUnsafeMutableBytes { FileSystem.readExactly(descriptor, into: $0, at: 0) }
                guard complete else { throw DiskEntryDamage("unreadable header") }
                let decoded = whole.withUnsafeBytes { bytes in
                    Result { () throws(DiskEntryDamage) in try DiskEntryHeader.decode(bytes) }
                }
                return try decoded.get()
            }
        }
        let header: DiskEntryHeader
        switch parsed {
        case .success(let value): header = value
        case .failure(let damage): return damaged(damage.description)
        }
        if let key, header.key != key { return damaged("stored under another key") }
        var payload: Data?
        if withPayload {
            // Uninitialised memory (Data(count:) would zero it first), handed to Data without a copy.
            let count = header.payloadLength
            operations += 1
            guard let memory = malloc(max(count, 1)) else { return damaged("cannot allocate \(count) bytes") }
            let bytes = UnsafeMutableRawBufferPointer(start: memory, count: count)
            guard FileSystem.readExactly(descriptor, into: bytes, at: status.size - count),
                  EntryChecksum.hash(UnsafeRawBufferPointer(bytes)) == header.payloadChecksum else {
                free(memory)
                return damaged("payload checksum mismatch")
            }
            payload = Data(bytesNoCopy: memory, count: count, deallocator: .free)
        }
        if let time = touchTime(status) {
            operations += 1
            FileSystem.setModificationTime(descriptor, to: time)
        }
        return .entry(header: header, payload: payload, status: status)
    }

    /// Writes `header` and `payload` to a new temporary file in `folder` and returns its path and size.
    /// On any failure the temporary file is removed and an `ImageError` with code `io` is thrown.
    static func writeTemporary(
        in folder: String, header: [UInt8], payload: Data, modificationTime: Double, synchronous: Bool
    ) throws(ImageError) -> (path: String, size: Int) {
        try writeTemporary(in: folder, header: header, payloadLength: payload.count,
                           modificationTime: modificationTime, synchronous: synchronous) { descriptor in
            payload.withUnsafeBytes { FileSystem.writeAll(descriptor, $0) }
        }
    }

    /// Writes `header` to a new temporary file in `folder`, then the payload of the entry file `source`
    /// (`payloadLength` bytes at `offset`) copied by the kernel: a new header for a payload that stays as it is,
    /// which is never read into memory nor hashed again (its checksum travels in the header).
    static func writeTemporary(
        in folder: String, header: [UInt8], payloadOf source: Int32, at offset: Int, payloadLength: Int,
        modificationTime: Double, synchronous: Bool
    ) throws(ImageError) -> (path: String, size: Int) {
        try writeTemporary(in: folder, header: header, payloadLength: payloadLength,
                           modificationTime: modificationTime, synchronous: synchronous) { descriptor in
            FileSystem.copyRange(from: source, at: offset, count: payloadLength, to: descriptor)
        }
    }

    private static func writeTemporary(
        in folder: String, header: [UInt8], payloadLength: Int, modificationTime: Double, synchronous: Bool,
        writePayload: (Int32) -> Errno?
    ) throws(ImageError) -> (path: String, size: Int) {
        let serial = temporaryCounter.add(1, ordering: .relaxed).newValue
        let path = "\(folder)/\(DiskFolder.temporaryPrefix)\(getpid())-\(serial)-\(UInt32.random(in: .min ... .max))"
        let descriptor: Int32
        switch FileSystem.createExclusively(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw ImageError(.io, "cannot create a file in \(folder): \(error)")
        }
        var failure = header.withUnsafeBytes { FileSystem.writeAll(descriptor, $0) }
        if failure == nil { failure = writePayload(descriptor) }
        if failure == nil, synchronous, fsync(descriptor) != 0 { failure = Errno(errno) }
        if failure == nil { FileSystem.setModificationTime(descriptor, to: modificationTime) }
        let closeFailure = FileSystem.closeFile(descriptor)
        if let error = failure ?? closeFailure {
            FileSystem.removeFile(path)
            throw ImageError(.io, "cannot write a cache entry in \(folder): \(error)")
        }
        return (path, header.count + payloadLength)
    }
}
