import Foundation
import WebImage

/// Appends the fields of a ``HelperWireFormat`` header: fixed-width little-endian numbers, length-prefixed UTF-8.
struct FieldWriter {
    private(set) var bytes = Data()

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func bool(_ value: Bool) { byte(value ? 1 : 0) }
    mutating func int(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }
    mutating func string(_ value: String) {
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }
    mutating func size(_ value: PixelSize) {
        int(value.width)
        int(value.height)
    }
    mutating func optionalInt(_ value: Int?) {
        bool(value != nil)
        if let value { int(value) }
    }
    mutating func optionalDouble(_ value: Double?) {
        bool(value != nil)
        if let value { double(value) }
    }
    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }
    mutating func optionalSize(_ value: PixelSize?) {
        bool(value != nil)
        if let value { size(value) }
    }
    /// A colour profile as its ICC bytes and code points: the parent reads the same profile back from them.
    mutating func optionalProfile(_ value: ColorProfile?) {
        bool(value != nil)
        guard let value else { return }
        int(value.iccData.count)
        bytes.append(value.iccData)
        bool(value.codePoints != nil)
        if let points = value.codePoints {
            int(Int(points.primaries))
            int(Int(points.transfer))
            int(Int(points.matrix))
            bool(points.fullRange)
            optionalDouble(points.contentPeak)
        }
    }
    /// Metadata as its three optional blocks.
    mutating func optionalMetadata(_ value: ImageMetadata?) {
        bool(value != nil)
        for block in [value?.exif, value?.xmp, value?.iptc] {
            bool(block != nil)
            if let block {
                int(block.count)
                bytes.append(block)
            }
        }
    }

    /// The fields behind their `UInt32` length.
    var framed: Data {
        var framed = Data()
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { framed.append(contentsOf: $0) }
        framed.append(bytes)
        return framed
    }
}

/// Reads what ``FieldWriter`` wrote; running past the end throws instead of trapping.
struct FieldReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) { bytes = Array(data) }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw HelperProtocolError("the header ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func bool() throws -> Bool { try byte() != 0 }
    mutating func int() throws -> Int { Int(Int64(bitPattern: try word())) }
    mutating func double() throws -> Double { Double(bitPattern: try word()) }
    mutating func string() throws -> String {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw HelperProtocolError("a string runs past the end") }
        defer { offset += count }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
    mutating func size() throws -> PixelSize { PixelSize(width: try int(), height: try int()) }
    mutating func optionalInt() throws -> Int? { try bool() ? try int() : nil }
    mutating func optionalDouble() throws -> Double? { try bool() ? try double() : nil }
    mutating func optionalString() throws -> String? { try bool() ? try string() : nil }
    mutating func optionalSize() throws -> PixelSize? { try bool() ? try size() : nil }
    mutating func optionalProfile() throws -> ColorProfile? {
        guard try bool() else { return nil }
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw HelperProtocolError("a \(count)-byte profile") }
        let icc = Data(bytes[offset..<offset + count])
        offset += count
        guard try bool() else { return ColorProfile(icc: icc) }
        let points = ColorCodePoints(primaries: UInt16(clamping: try int()), transfer: UInt16(clamping: try int()),
                                     matrix: UInt16(clamping: try int()), fullRange: try bool(),
                                     contentPeak: try optionalDouble())
        return ColorProfile(codePoints: points) ?? ColorProfile(icc: icc)
    }

    mutating func optionalMetadata() throws -> ImageMetadata? {
        guard try bool() else { return nil }
        var blocks: [Data?] = []
        for _ in 0..<3 {
            guard try bool() else {
                blocks.append(nil)
                continue
            }
            let count = try int()
            guard count >= 0, count <= bytes.count - offset else { throw HelperProtocolError("a \(count)-byte block") }
            blocks.append(Data(bytes[offset..<offset + count]))
            offset += count
        }
        return ImageMetadata(exif: blocks[0], xmp: blocks[1], iptc: blocks[2])
    }

    private mutating func word() throws -> UInt64 {
        guard bytes.count - offset >= 8 else { throw HelperProtocolError("the header ends early") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
        offset += 8
        return value
    }
}
