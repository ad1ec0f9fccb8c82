import Foundation
import NIOCore
import NIOHTTP1

extension TestImageServer {
    /// A status line, then header lines of about `lineBytes` bytes each, `delay` apart, that never end. Stops
    /// when the client leaves (a write fails) or the server shuts down.
    func sendEndlessHeaders(_ exchange: Exchange, delay: Duration, lineBytes: Int) async throws -> Bool {
        try await exchange.sendRaw(Data("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n".utf8))
        let filler = String(repeating: "a", count: max(1, lineBytes - 20))
        var index = 0
        while !Task.isCancelled {
            try await exchange.sendRaw(Data("X-Filler-\(index): \(filler)\r\n".utf8))
            index += 1
            if delay > .zero { try await Task.sleep(for: delay) }
        }
        return false
    }

    /// A `200` with a chunked body of `chunkBytes`-byte chunks, `delay` apart, that never ends. Stops when the
    /// client leaves or the server shuts down.
    func sendEndlessBody(_ exchange: Exchange, delay: Duration, chunkBytes: Int) async throws -> Bool {
        try await exchange.sendHead(.ok, ["Content-Type": "image/png", "Transfer-Encoding": "chunked"])
        var chunk = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        chunk += Data(repeating: 0x5A, count: max(0, chunkBytes - chunk.count))
        while !Task.isCancelled {
            try await exchange.sendBody(chunk)
            if delay > .zero { try await Task.sleep(for: delay) }
        }
        return false
    }
}
