import NIOCore
@testable import WebImageRedis

/// The Redis client's reply parser on any bytes, as a hostile or broken server could send them: each call parses a
/// whole reply, waits for more bytes (consuming nothing), or throws; it never traps, hangs or over-allocates.
/// The input after its first byte is also fed in two pieces, split where that byte says, as a socket may deliver
/// it: the first reply must come out the same.
func fuzzRESP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    var whole = ByteBuffer(bytes: bytes)
    while whole.readableBytes > 0 {
        let before = whole.readableBytes
        guard let value = try? RESPParser.parse(&whole) else { break }
        precondition(whole.readableBytes < before, "a reply parsed from no bytes: \(value)")
    }
    guard count > 1 else { return 0 }
    let split = 1 + Int(bytes[0]) % (count - 1)
    var reference = ByteBuffer(bytes: bytes[1...])
    let expected = try? RESPParser.parse(&reference)
    var pieces = ByteBuffer(bytes: bytes[1..<split])
    var parsed = try? RESPParser.parse(&pieces)
    if parsed == nil {
        pieces.writeBytes(bytes[split...])
        parsed = try? RESPParser.parse(&pieces)
    }
    precondition(parsed == expected, "a split changed the reply")
    return 0
}
