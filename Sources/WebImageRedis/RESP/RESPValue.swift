import NIOCore

/// One reply from a Redis server, in RESP2 or RESP3 (`HELLO 3`). Bulk strings stay slices of the bytes read
/// from the socket: a 5 MB value is never copied by the parser.
enum RESPValue: Sendable, Equatable {
    case simpleString(String)
    /// `-ERR …` and RESP3's blob errors: a reply, not a failed connection.
    case error(String)
    case integer(Int64)
    case bulkString(ByteBuffer)
    /// RESP2's null bulk string and null array, and RESP3's null.
    case null
    case array([RESPValue])
    /// RESP3 only.
    case double(Double)
    case boolean(Bool)
    case bigNumber(String)
    case map([(key: RESPValue, value: RESPValue)])
    case set([RESPValue])
    /// Out-of-band data (RESP3 pushes): never the answer to a command.
    case push([RESPValue])

    static func == (lhs: RESPValue, rhs: RESPValue) -> Bool {
        switch (lhs, rhs) {
        case let (.simpleString(a), .simpleString(b)), let (.error(a), .error(b)), let (.bigNumber(a), .bigNumber(b)):
            return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.bulkString(a), .bulkString(b)): return a == b
        case (.null, .null): return true
        case let (.array(a), .array(b)), let (.set(a), .set(b)), let (.push(a), .push(b)): return a == b
        case let (.double(a), .double(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.map(a), .map(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The text of a simple string, bulk string or verbatim string.
    var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(buffer: bytes)
        default: nil
        }
    }

    /// The error message when this is an error reply.
    var errorMessage: String? {
        if case .error(let message) = self { return message }
        return nil
    }

    /// The elements of an array, set or push.
    var elements: [RESPValue]? {
        switch self {
        case .array(let values), .set(let values), .push(let values): values
        default: nil
        }
    }
}
