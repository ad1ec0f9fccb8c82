import Foundation
import Testing
@_spi(Instrumentation) @testable import WebImage

/// Ways an entry file can be damaged on disk.
enum Damage: String, CaseIterable, CustomTestStringConvertible {
    case payloadByteFlipped, headerKeyByteFlipped, lengthFieldChanged, wrongMagic, unknownVersion
    case truncatedInPayload, truncatedInHeader, truncatedToNothing, extraByteAppended, replacedByGarbage
    case otherKeysEntry

    var testDescription: String { rawValue }

    func apply(to bytes: inout [UInt8], otherEntry: [UInt8]) {
        switch self {
        case .payloadByteFlipped: bytes[bytes.count - 10] ^= 0x01
        case .headerKeyByteFlipped: bytes[DiskEntryHeader.fixedLength + 4] ^= 0x20
        case .lengthFieldChanged: bytes[16] &+= 1
        case .wrongMagic: bytes[1] = UInt8(ascii: "X")
        case .unknownVersion: bytes[8] = 9
        case .truncatedInPayload: bytes.removeLast(100)
        case .truncatedInHeader: bytes.removeLast(bytes.count - 30)
        case .truncatedToNothing: bytes = []
        case .extraByteAppended: bytes.append(0)
        case .replacedByGarbage: bytes = (0..<bytes.count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        case .otherKeysEntry: bytes = otherEntry  // a valid entry renamed to the wrong name
        }
    }
}

@Suite("DiskCache damaged entries")
struct DiskCacheDamageTests {
    @Test("a damaged or truncated entry is a miss, and its file is deleted", arguments: Damage.allCases)
    func damagedEntryIsAMiss(damage: Damage) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let writer = makeDiskCache(folder)
        let payload = WebImageTool.payload(forKey: "victim", size: 3000)
        try writer.store(payload, forKey: "victim")
        try writer.store(Data("bystander".utf8), forKey: "other")
        let path = folder.url.appendingPathComponent(DiskEntryName(key: "victim").fileName)
        let otherPath = folder.url.appendingPathComponent(DiskEntryName(key: "other").fileName)
        var bytes = try [UInt8](Data(contentsOf: path))
        damage.apply(to: &bytes, otherEntry: try [UInt8](Data(contentsOf: otherPath)))
        try Data(bytes).write(to: path)

        for reader in [writer, makeDiskCache(folder)] {  // a cache that knew the entry, and a fresh one
            try? Data(bytes).write(to: path)
            #expect(reader.data(forKey: "victim") == nil)
            #expect(reader.statistics.damagedEntries == 1)
            #expect(!FileManager.default.fileExists(atPath: path.path))
            #expect(!reader.contains("victim"))
            #expect(reader.data(forKey: "other") == Data("bystander".utf8))
        }
    }

    @Test("metadata and enumeration skip (and delete) damaged entries too")
    func enumerationSkipsDamage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = makeDiskCache(folder)
        for index in 0..<4 { try cache.store(Data(repeating: UInt8(index), count: 100), forKey: "k\(index)") }
        let path = folder.url.appendingPathComponent(DiskEntryName(key: "k2").fileName)
        try Data(try Data(contentsOf: path).dropLast(5)).write(to: path)
        #expect(cache.enumerateEntriesForTest().map(\.key).sorted() == ["k0", "k1", "k3"])
        #expect(cache.metadata(forKey: "k2") == nil)
        #expect(cache.count == 3)
        #expect(!FileManager.default.fileExists(atPath: path.path))
    }

    @Test("the header reader rejects every cut of a valid header without trapping")
    func headerCuts() throws {
        let header = try DiskEntryHeader(
            key: String(repeating: "k", count: 5000), format: "png", created: 12,
            validators: HTTPValidators(etag: "e", lastModified: "l", expires: 3), payloadLength: 7,
            payloadChecksum: 99
        ).encoded()
        let decoded = try header.withUnsafeBytes { bytes in
            try Result { () throws(DiskEntryDamage) in try DiskEntryHeader.decode(bytes) }.get()
        }
        #expect(decoded.key.count == 5000 && decoded.validators.expires == 3 && decoded.payloadLength == 7)
        for length in stride(from: 0, to: header.count, by: 97) {
            let cut = Array(header.prefix(length))
            let result = cut.withUnsafeBytes { bytes in
                Result { () throws(DiskEntryDamage) in try DiskEntryHeader.decode(bytes) }
            }
            #expect(throws: DiskEntryDamage.self) { try result.get() }
        }
    }

    @Test("the entry checksum is XXH64: it matches the reference tool (xxhsum -H1)")
    func checksumVectors() {
        #expect(EntryChecksum.hash([]) == 0xEF46_DB37_51D8_E999)
        #expect(EntryChecksum.hash(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        #expect(EntryChecksum.hash(Array("123456789".utf8)) == 0x8CB8_41DB_40E6_AE83)
        #expect(EntryChecksum.hash([UInt8](repeating: UInt8(ascii: "x"), count: 100)) == 0x92F0_DE5A_88A3_C094)
    }

    @Test("file names: 64 hex digits and a sanitised extension from the URL path")
    func entryNames() {
        #expect(DiskEntryName.pathExtension(ofKey: "https://a.com/x/photo.JPG?v=1.png#frag.gif") == "jpg")
        #expect(DiskEntryName.pathExtension(ofKey: "https://a.com/x/archive.tar.gz") == "gz")
        #expect(DiskEntryName.pathExtension(ofKey: "https://a.com/x/noextension") == "")
        #expect(DiskEntryName.pathExtension(ofKey: "https://a.com/x.png/") == "")
        #expect(DiskEntryName.pathExtension(ofKey: "https://a.com/.hidden") == "")
        #expect(DiskEntryName.pathExtension(ofKey: "file.verylongext") == "")
        #expect(DiskEntryName.pathExtension(ofKey: "file.p-g") == "")
        #expect(DiskEntryName.pathExtension(ofKey: "file.pn\0g") == "")
        #expect(DiskEntryName.pathExtension(ofKey: "file.wébp") == "")
        let name = DiskEntryName(key: "abc")
        // SHA-256("abc")
        #expect(name.fileName == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(DiskEntryName(fileName: name.fileName) == name)
        let withExtension = DiskEntryName(key: "https://x/y.webp")
        #expect(DiskEntryName(fileName: withExtension.fileName) == withExtension)
        #expect(DiskEntryName(fileName: ".tmp-1-2-3") == nil)
        #expect(DiskEntryName(fileName: name.fileName + ".") == nil)
        #expect(DiskEntryName(fileName: name.fileName.uppercased()) == nil)
        #expect(DiskEntryName(fileName: String(name.fileName.dropLast())) == nil)
    }
}
