import Foundation
import FuzzSupport
@testable import WebImage

/// The disk cache's entry header reader on any bytes.
///
/// A random header almost never carries a correct checksum, so when byte 0 is odd the harness writes the right
/// header checksum into the input first: the field parser behind the checksum check gets fuzzed too. Any header
/// that parses must survive a round trip: encoding it and reading it back gives the same header.
func fuzzDiskEntryHeader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard count > 1, let start else { return 0 }
    let fixChecksum = start[0] & 1 == 1
    var bytes = [UInt8](UnsafeBufferPointer(start: start + 1, count: count - 1))
    if fixChecksum, let lengths = try? bytes.withUnsafeBytes({ try DiskEntryHeader.declaredLengths($0) }),
       lengths.header <= bytes.count {
        var copy = Array(bytes[0..<lengths.header])
        copy.replaceSubrange(32..<40, with: repeatElement(0, count: 8))
        withUnsafeBytes(of: EntryChecksum.hash(copy).littleEndian) { bytes.replaceSubrange(32..<40, with: $0) }
    }
    guard let header = try? bytes.withUnsafeBytes({ try DiskEntryHeader.decode($0) }) else { return 0 }
    guard let encoded = try? header.encoded() else { return 0 }
    let reread = try? encoded.withUnsafeBytes { try DiskEntryHeader.decode($0) }
    // Bit-for-bit comparison of the dates, so that a NaN read from the file still compares equal.
    precondition(reread?.key == header.key && reread?.format == header.format
                 && reread?.created.bitPattern == header.created.bitPattern
                 && reread?.payloadLength == header.payloadLength
                 && reread?.payloadChecksum == header.payloadChecksum,
                 "a parsed header does not survive encoding")
    return 0
}
