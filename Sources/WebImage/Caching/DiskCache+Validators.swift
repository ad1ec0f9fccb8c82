import Foundation

extension DiskCache {
    /// Gives the entry for `key` new validators and stamps it as freshly created (after a `304 Not Modified`):
    /// a new header in front of the same payload, which the kernel copies from the old file without it passing
    /// through this process or being hashed again (its checksum is kept in the header). The new file replaces
    /// the old one by a rename, as every write does, so readers in any process see one or the other, whole.
    /// Returns `false` when there is no valid entry (or it was replaced meanwhile).
    @discardableResult
    public func updateValidators(_ validators: HTTPValidators, forKey key: String) throws(ImageError) -> Bool {
        let name = DiskEntryName(key: key)
        let path = name.fileName(in: main.path)
        let descriptor: Int32
        switch FileSystem.openForReading(path) {
        case .success(let opened): descriptor = opened
        case .failure: return false
        }
        defer { FileSystem.closeFile(descriptor) }
        var operations = 0
        // The header is read and verified through the path; the descriptor opened first must be that same file.
        guard case .entry(let old, _, let status) = DiskEntryFile.read(at: path, key: key, withPayload: false,
                                                                      operations: &operations),
              let opened = FileSystem.status(descriptor: descriptor),
              opened.device == status.device, opened.inode == status.inode
        else { return false }
        let now = configuration.clock.now()
        let header: [UInt8]
        do {
            header = try DiskEntryHeader(key: key, format: old.format, created: now, validators: validators,
                                         payloadLength: old.payloadLength, payloadChecksum: old.payloadChecksum)
                .encoded()
        } catch {
            throw ImageError(.io, "cannot store the entry: \(error.description)")
        }
        let written = try DiskEntryFile.writeTemporary(
            in: main.path, header: header, payloadOf: descriptor, at: status.size - old.payloadLength,
            payloadLength: old.payloadLength, modificationTime: now, synchronous: configuration.synchronousWrites)
        let replaced = try renameLock.withLock { changes throws(ImageError) -> Bool in
            changes &+= 1
            // Another writer may have put a new entry in place since the header was read: that one wins.
            guard let current = FileSystem.status(path), current.device == status.device,
                  current.inode == status.inode else {
                FileSystem.removeFile(written.path)
                return false
            }
            if let error = FileSystem.renameFile(written.path, to: path) {
                FileSystem.removeFile(written.path)
                throw ImageError(.io, "cannot move a cache entry into place: \(error)")
            }
            return true
        }
        guard replaced else { return false }
        state.withLock { state in
            state.recentAccess[name] = nil
            state.pendingBytes += written.size - status.size
            state.statistics.writes += 1
        }
        flushTotals(force: false)
        return true
    }
}
