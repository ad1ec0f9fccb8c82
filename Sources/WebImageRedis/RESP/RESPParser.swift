import NIOCore

/// Reads RESP2 and RESP3 replies from bytes as they arrive: a reply split anywhere between two reads parses once
/// the rest is there. Lengths are checked before anything is allocated, so a hostile or broken peer cannot make
/// the client reserve memory it never sends.
enum RESPParser {
    /// The largest bulk string accepted: Redis's own default `proto-max-bulk-len`.
    static let maximumBulkLength = 512 * 1024 * 1024
    /// The most elements one aggregate may declare, and how deeply aggregates may nest.
    static let maximumElements = 1 << 24
    static let maximumDepth = 32
    /// The longest simple line (status, error, number) accepted before its `\r\n`.
    static let maximumLineLength = 64 * 1024

    /// The next complete reply at the front of `buffer`, which is then consumed; `nil` (and nothing consumed)
    /// when the reply is not complete yet. Throws ``RedisError/protocolViolation(_:)`` on bytes that are not RESP.
    static func parse(_ buffer: inout ByteBuffer) throws(RedisError) -> RESPValue? {
        var copy = buffer
        guard let value = try parseValue(&copy, depth: 0) else { return nil }
        buffer = copy
        return value
    }

    private static func parseValue(_ buffer: inout ByteBuffer, depth: Int) throws(RedisError) -> RESPValue? {
        guard depth <= maximumDepth else { throw .protocolViolation("aggregates nested deeper than \(maximumDepth)") }
        guard let marker = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        var rest = buffer
        rest.moveReaderIndex(forwardBy: 1)
        guard let line = try readLine(&rest) else { return nil }
        let value: RESPValue
        switch marker {
        case UInt8(ascii: "+"): value = .simpleString(String(buffer: line))
        case UInt8(ascii: "-"): value = .error(String(buffer: line))
        case UInt8(ascii: ":"): value = .integer(try integer(line))
        case UInt8(ascii: "("): value = .bigNumber(String(buffer: line))
        case UInt8(ascii: ","): value = .double(try double(line))
        case UInt8(ascii: "#"):
            switch String(buffer: line) {
            case "t": value = .boolean(true)
            case "f": value = .boolean(false)
            default: throw .protocolViolation("a boolean that is neither t nor f")
            }
        case UInt8(ascii: "_"):
            guard line.readableBytes == 0 else { throw .protocolViolation("a null with a payload") }
            value = .null
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
            let length = try integer(line)
            if length == -1, marker == UInt8(ascii: "$") {
                value = .null
                break
            }
            guard length >= 0, length <= maximumBulkLength else { throw .protocolViolation("bulk length \(length)") }
            guard rest.readableBytes >= Int(length) + 2 else { return nil }
            var bytes = rest.readSlice(length: Int(length))!
            guard rest.readInteger(as: UInt16.self) == 0x0D0A else { throw .protocolViolation("a bulk string not ended by CRLF") }
            switch marker {
            case UInt8(ascii: "!"): value = .error(String(buffer: bytes))
            case UInt8(ascii: "="):
                // "txt:" or "mkd:" in front of the text says how to show it; the client only needs the text.
                guard bytes.readableBytes >= 4 else { throw .protocolViolation("a verbatim string without its format") }
                bytes.moveReaderIndex(forwardBy: 4)
                value = .bulkString(bytes)
            default: value = .bulkString(bytes)
            }
        case UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: ">"), UInt8(ascii: "%"), UInt8(ascii: "|"):
            let count = try integer(line)
            if count == -1, marker == UInt8(ascii: "*") {
                value = .null
                break
            }
            guard count >= 0, count <= maximumElements else { throw .protocolViolation("aggregate length \(count)") }
            let isPaired = marker == UInt8(ascii: "%") || marker == UInt8(ascii: "|")
            var elements: [RESPValue] = []
            // Reserve no more than the bytes present could hold (each element is at least three bytes).
            elements.reserveCapacity(min(Int(count) * (isPaired ? 2 : 1), rest.readableBytes / 3))
            for _ in 0..<Int(count) * (isPaired ? 2 : 1) {
                guard let element = try parseValue(&rest, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            switch marker {
            case UInt8(ascii: "~"): value = .set(elements)
            case UInt8(ascii: ">"): value = .push(elements)
            case UInt8(ascii: "*"): value = .array(elements)
            default:
                let pairs = stride(from: 0, to: elements.count, by: 2).map { (key: elements[$0], value: elements[$0 + 1]) }
                if marker == UInt8(ascii: "|") {
                    // An attribute describes the reply that follows it; the client has no use for it.
                    buffer = rest
                    return try parseValue(&buffer, depth: depth)
                }
                value = .map(pairs)
            }
        default:
            throw .protocolViolation("unknown type byte 0x\(String(marker, radix: 16))")
        }
        buffer = rest
        return value
    }

    /// The bytes up to the next CRLF, which is consumed too; `nil` when no CRLF has arrived yet.
    private static func readLine(_ buffer: inout ByteBuffer) throws(RedisError) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let cr = view.prefix(maximumLineLength + 1).firstIndex(of: UInt8(ascii: "\r")) else {
            if view.count > maximumLineLength { throw .protocolViolation("a line longer than \(maximumLineLength) bytes") }
            return nil
        }
        let length = cr - view.startIndex
        guard buffer.readableBytes >= length + 2 else { return nil }
        guard buffer.getInteger(at: buffer.readerIndex + length + 1, as: UInt8.self) == UInt8(ascii: "\n") else {
            throw .protocolViolation("a CR not followed by LF")
        }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    private static func integer(_ line: ByteBuffer) throws(RedisError) -> Int64 {
        guard let value = Int64(String(buffer: line)) else { throw .protocolViolation("not an integer: \(String(buffer: line))") }
        return value
    }

    private static func double(_ line: ByteBuffer) throws(RedisError) -> Double {
        let text = String(buffer: line)
        switch text {
        case "inf": return .infinity
        case "-inf": return -.infinity
        case "nan": return .nan
        default:
            guard let value = Double(text) else { throw .protocolViolation("not a double: \(text)") }
            return value
        }
    }
}
