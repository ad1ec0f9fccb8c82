import Foundation

/// The disk cache's entry format (``DiskEntryHeader`` followed by the payload) as one value in memory, for cache
/// tiers that keep entries elsewhere (a cache server). The same checksums guard both: a value damaged on the way
/// or in storage is detected, never served.
package enum CacheEntryEncoding {
    /// The header bytes that go in front of `payload` when it is stored under `key`.
    package static func header(for payload: Data, key: String, validators: HTTPValidators, created: Double)
        throws(ImageError) -> [UInt8]
    {
        let checksum = payload.withUnsafeBytes { EntryChecksum.hash($0) }
        let header = DiskEntryHeader(
            key: key, format: ImageFormat.detect(payload.prefix(64)).rawValue, created: created, validators: validators,
            payloadLength: payload.count, payloadChecksum: checksum)
        do {
            return try header.encoded()
        } catch {
            throw ImageError(.io, "cannot store under this key: \(error.description)")
        }
    }

    /// The entry `bytes` holds if it is complete, verified and stored under `key`; otherwise why not.
    package static func decode(_ bytes: UnsafeRawBufferPointer, key: String) -> Result<CachedImageData, CacheEntryRejection> {
        let header: DiskEntryHeader
        do {
            let (headerLength, payloadLength) = try DiskEntryHeader.declaredLengths(bytes)
            guard bytes.count == headerLength + payloadLength else {
                return .failure(CacheEntryRejection("\(bytes.count) bytes, the header says \(headerLength + payloadLength)"))
            }
            header = try DiskEntryHeader.decode(bytes)
        } catch {
            return .failure(CacheEntryRejection(error.description))
        }
        guard header.key == key else { return .failure(CacheEntryRejection("stored under another key")) }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - header.payloadLength)...])
        guard EntryChecksum.hash(payload) == header.payloadChecksum else {
            return .failure(CacheEntryRejection("payload checksum mismatch"))
        }
        let metadata = CacheEntryMetadata(
            key: key, format: ImageFormat(rawValue: header.format) ?? .unknown, payloadLength: header.payloadLength,
            fileSize: bytes.count, created: header.created, lastAccess: header.created, validators: header.validators)
        return .success(CachedImageData(data: Data(payload), metadata: metadata))
    }
}

/// Why a stored entry was not accepted: it is treated as a miss and deleted.
package struct CacheEntryRejection: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
