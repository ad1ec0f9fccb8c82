import Foundation
import NIOCore
import NIOHTTP1

extension TestImageServer {
    /// Answers one request; returns whether the connection may serve another.
    func route(_ exchange: Exchange) async throws -> Bool {
        let segments = exchange.segments
        guard let first = segments.first else { return try await notFound(exchange) }
        let name = segments.count > 1 ? segments[segments.count - 1] : ""
        switch (first, segments.count) {
        case ("files", 2):
            return try await serveFile(exchange, name: name)
        case ("slow", 2):
            return try await serveSlowly(exchange, name: name)
        case ("stall", 2):
            return try await stall(exchange, name: name)
        case ("stall-once", 2):
            // The first request stalls like `stall`; later ones get the whole file.
            if log.count("/stall-once/\(name)") > 1 { return try await serveFile(exchange, name: name) }
            return try await stall(exchange, name: name)
        case ("short", 2):
            return try await serveShort(exchange, name: name)
        case ("short-once", 2):
            if log.count("/short-once/\(name)") > 1 { return try await serveFile(exchange, name: name) }
            return try await serveShort(exchange, name: name)
        case ("reset", 2):
            return try await serveThenReset(exchange, name: name, onlyFirstTime: false)
        case ("reset-once", 2):
            return try await serveThenReset(exchange, name: name, onlyFirstTime: true)
        case ("unsized-reset-once", 2):
            if log.count("/unsized-reset-once/\(name)") > 1 { return try await serveFile(exchange, name: name) }
            return try await serveUnsizedThenReset(exchange, name: name)
        case ("redirect", 3):
            let remaining = Int(segments[1]) ?? 0
            let target = remaining > 1 ? "/redirect/\(remaining - 1)/\(name)" : "/files/\(name)"
            return try await redirect(exchange, to: target)
        case ("redirect-to", 1):
            return try await redirect(exchange, to: exchange.query("url") ?? "/")
        case ("loop", 2):
            return try await redirect(exchange, to: segments[1] == "a" ? "/loop/b" : "/loop/a")
        case ("status", 2):
            let code = Int(segments[1]) ?? 500
            try await exchange.sendText(HTTPResponseStatus(statusCode: code), "status \(code)\n")
            return true
        case ("empty", 1):
            try await exchange.send(.ok, headers: ["Content-Type": "image/png"])
            return true
        case ("flaky", 2):
            let failures = exchange.query("failures", default: 1)
            let seen = log.count("/flaky/\(name)")
            if seen <= failures {
                let status = exchange.query("status", default: 503)
                try await exchange.sendText(HTTPResponseStatus(statusCode: status), "try again\n")
                return true
            }
            return try await serveFile(exchange, name: name)
        case ("wrong-type", 2):
            guard let file = exchange.file(name) else { return try await notFound(exchange) }
            try await exchange.send(.ok, headers: ["Content-Type": "text/html"], body: file.data)
            return true
        case ("gzip", 2):
            guard let file = exchange.file(name) else { return try await notFound(exchange) }
            try await exchange.sendHead(.ok, ["Content-Type": file.contentType, Self.compressMarker: "1"])
            try await exchange.sendBody(file.data)
            try await exchange.sendEnd()
            return true
        case ("huge", 1):
            return try await serveHuge(exchange, bytes: exchange.query("bytes", default: 1 << 30),
                                       chunked: exchange.query("chunked") != nil)
        case ("endless-headers", 1):
            return try await sendEndlessHeaders(exchange, delay: .milliseconds(exchange.query("delayMs", default: 0)),
                                                lineBytes: exchange.query("lineBytes", default: 1000))
        case ("endless-body", 1):
            return try await sendEndlessBody(exchange, delay: .milliseconds(exchange.query("delayMs", default: 0)),
                                             chunkBytes: exchange.query("chunk", default: 64 * 1024))
        case ("auth", 2):
            return try await serveWithAuth(exchange, name: name)
        case ("gate", 3):
            await gates.wait(segments[1])
            return try await serveFile(exchange, name: name)
        case ("cookie", 2):
            guard let file = exchange.file(name) else { return try await notFound(exchange) }
            var headers: HTTPHeaders = ["Content-Type": file.contentType]
            if let cookie = exchange.query("set") { headers.add(name: "Set-Cookie", value: cookie + "; Path=/") }
            try await exchange.send(.ok, headers: headers, body: file.data)
            return true
        default:
            return try await notFound(exchange)
        }
    }

    private func notFound(_ exchange: Exchange) async throws -> Bool {
        try await exchange.sendText(.notFound, "not found\n")
        return true
    }

    /// The file with validators: 304 for a matching `If-None-Match`, 206 for a satisfiable `Range` (to its end
    /// or the file's) whose `If-Range` (if any) still matches.
    private func serveFile(_ exchange: Exchange, name: String) async throws -> Bool {
        guard let file = exchange.file(name) else { return try await notFound(exchange) }
        var headers: HTTPHeaders = [
            "Content-Type": file.contentType, "ETag": file.etag, "Last-Modified": file.lastModified,
            "Accept-Ranges": "bytes",
        ]
        if let cacheControl = file.cacheControl { headers.add(name: "Cache-Control", value: cacheControl) }
        if let tags = exchange.header("If-None-Match"),
           tags.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == file.etag }) {
            try await exchange.send(.notModified, headers: headers)
            return true
        }
        if let range = exchange.header("Range"), let start = Self.rangeStart(range),
           (Self.rangeEnd(range) ?? start) >= start {
            let ifRange = exchange.header("If-Range")
            let stillValid = ifRange == nil || ifRange == file.etag || ifRange == file.lastModified
            if stillValid {
                guard start < file.data.count else {
                    headers.add(name: "Content-Range", value: "bytes */\(file.data.count)")
                    try await exchange.send(.rangeNotSatisfiable, headers: headers)
                    return true
                }
                let end = min(Self.rangeEnd(range) ?? file.data.count - 1, file.data.count - 1)
                headers.add(name: "Content-Range", value: "bytes \(start)-\(end)/\(file.data.count)")
                try await exchange.send(.partialContent, headers: headers, body: file.data.subdata(in: start..<end + 1))
                return true
            }
        }
        // In pieces, so that a client that stops reading leaves the rest unsent (and uncounted).
        headers.add(name: "Content-Length", value: String(file.data.count))
        try await exchange.sendHead(.ok, headers)
        try await exchange.sendBody(file.data, inPiecesOf: 16 * 1024)
        try await exchange.sendEnd()
        return true
    }

    /// The end of a `bytes=START-END` range; `nil` for `bytes=START-`.
    static func rangeEnd(_ header: String) -> Int? {
        guard let dash = header.firstIndex(of: "-") else { return nil }
        return Int(header[header.index(after: dash)...])
    }

    /// The start of a `bytes=START-` or `bytes=START-END` range.
    static func rangeStart(_ header: String) -> Int? {
        guard header.hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[..<dash])
    }

    private func serveSlowly(_ exchange: Exchange, name: String) async throws -> Bool {
        guard let file = exchange.file(name) else { return try await notFound(exchange) }
        let chunk = max(1, exchange.query("chunk", default: 1024))
        let delay = Duration.milliseconds(exchange.query("delayMs", default: 20))
        try await exchange.sendHead(.ok, ["Content-Type": file.contentType, "Content-Length": "\(file.data.count)",
                                          "ETag": file.etag])
        var offset = 0
        while offset < file.data.count {
            let end = min(file.data.count, offset + chunk)
            try await exchange.sendBody(file.data.subdata(in: offset..<end))
            offset = end
            if offset < file.data.count { try await Task.sleep(for: delay) }
        }
        try await exchange.sendEnd()
        return true
    }

    private func stall(_ exchange: Exchange, name: String) async throws -> Bool {
        guard let file = exchange.file(name) else { return try await notFound(exchange) }
        let after = min(file.data.count, exchange.query("after", default: 0))
        try await exchange.sendHead(.ok, ["Content-Type": file.contentType, "Content-Length": "\(file.data.count)"])
        try await exchange.sendBody(file.data.prefix(after))
        await exchange.waitForClientToLeave()
        return false
    }

    private func serveShort(_ exchange: Exchange, name: String) async throws -> Bool {
        guard let file = exchange.file(name) else { return try await notFound(exchange) }
        try await exchange.sendHead(.ok, ["Content-Type": file.contentType, "Content-Length": "\(file.data.count)",
                                          "ETag": file.etag, "Last-Modified": file.lastModified,
                                          "Accept-Ranges": "bytes"])
        try await exchange.sendBody(file.data.prefix(file.data.count / 2))
        await exchange.closeCleanly()
        return false
    }

    private func serveThenReset(_ exchange: Exchange, name: String, onlyFirstTime: Bool) async throws -> Bool {
        guard let file = exchange.file(name) else { return try await notFound(exchange) }
        let path = "/\(exchange.segments.joined(separator: "/"))"
        if onlyFirstTime && log.count(path) > 1 {
            return try await serveFile(exchange, name: name)
        }
        let after = min(file.data.count - 1, exchange.query("after", default: file.data.count / 2))
        try await exchange.sendHead(.ok, [
            "Content-Type": file.contentType, "Content-Length": "\(file.data.count)", "ETag": file.etag,
            "Last-Modified": file.lastModified, "Accept-Ranges": "bytes",
        ])
        try await exchange.sendBody(file.data.prefix(after))
        await exchange.reset()
        return false
    }

    /// A chunked body (no `Content-Length`, so a client cannot tell its size up front) with validators, reset
    /// after `after` bytes.
    private func serveUnsizedThenReset(_ exchange: Exchange, name: String) async throws -> Bool {
        guard let file = exchange.file(name) else { return try await notFound(exchange) }
        let after = min(file.data.count - 1, exchange.query("after", default: file.data.count / 2))
        try await exchange.sendHead(.ok, [
            "Content-Type": file.contentType, "Transfer-Encoding": "chunked", "ETag": file.etag,
            "Last-Modified": file.lastModified, "Accept-Ranges": "bytes",
        ])
        try await exchange.sendBody(file.data.prefix(after))
        await exchange.reset()
        return false
    }

    private func redirect(_ exchange: Exchange, to target: String) async throws -> Bool {
        try await exchange.sendText(.found, "see \(target)\n", headers: ["Location": target])
        return true
    }

    private func serveHuge(_ exchange: Exchange, bytes: Int, chunked: Bool) async throws -> Bool {
        let piece = Data(repeating: 0x5A, count: 64 * 1024)
        var headers: HTTPHeaders = ["Content-Type": "image/png"]
        headers.add(name: chunked ? "Transfer-Encoding" : "Content-Length", value: chunked ? "chunked" : "\(bytes)")
        try await exchange.sendHead(.ok, headers)
        var sent = 0
        while sent < bytes {
            let count = min(piece.count, bytes - sent)
            try await exchange.sendBody(count == piece.count ? piece : piece.prefix(count))
            sent += count
        }
        try await exchange.sendEnd()
        return true
    }

    private func serveWithAuth(_ exchange: Exchange, name: String) async throws -> Bool {
        let user = exchange.query("user") ?? "user"
        let password = exchange.query("password") ?? "secret"
        let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        guard exchange.header("Authorization") == expected else {
            try await exchange.sendText(.unauthorized, "who are you?\n",
                                        headers: ["WWW-Authenticate": "Basic realm=\"images\""])
            return true
        }
        return try await serveFile(exchange, name: name)
    }
}
