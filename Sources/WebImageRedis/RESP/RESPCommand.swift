import Foundation
import NIOCore

/// One argument of a command, written as a RESP bulk string.
enum RedisArgument: Sendable, ExpressibleByStringLiteral {
    case text(String)
    case bytes(Data)
    /// Two pieces sent as one bulk string (an entry's header and its payload), so neither is copied to join them.
    case joined([UInt8], Data)

    init(stringLiteral value: String) { self = .text(value) }

    var count: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .bytes(let data): data.count
        case .joined(let head, let tail): head.count + tail.count
        }
    }
}

/// Writes commands the way every client sends them: an array of bulk strings.
enum RESPCommandEncoding {
    static func write(_ arguments: [RedisArgument], into buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: arguments.reduce(16) { $0 + $1.count + 16 })
        buffer.writeStaticString("*")
        buffer.writeString(String(arguments.count))
        buffer.writeStaticString("\r\n")
        for argument in arguments {
            buffer.writeStaticString("$")
            buffer.writeString(String(argument.count))
            buffer.writeStaticString("\r\n")
            switch argument {
            case .text(let text): buffer.writeString(text)
            case .bytes(let data): buffer.writeBytes(data)
            case .joined(let head, let tail):
                buffer.writeBytes(head)
                buffer.writeBytes(tail)
            }
            buffer.writeStaticString("\r\n")
        }
    }
}
