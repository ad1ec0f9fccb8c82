import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// A file the server holds, with the validators it sends for it.
struct ServedFile: Sendable {
    let data: Data
    let contentType: String
    let etag: String
    let lastModified: String
    let cacheControl: String?

    /// A stable 32-bit FNV-1a hash, for default ETags.
    static func fnv1a(_ data: Data) -> String {
        var hash: UInt32 = 0x811c_9dc5
        for byte in data {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return String(hash, radix: 16)
    }
}

/// Named gates that hold requests until a test opens them.
final class Gates: Sendable {
    private struct State {
        var open: Set<String> = []
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
        var allOpen = false
    }

    private let state = ServerLock(State())

    func close(_ name: String) {
        state.withLock { _ = $0.open.remove(name) }
    }

    func open(_ name: String) {
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open.insert(name)
            return state.waiting.removeValue(forKey: name) ?? []
        }
        for continuation in released { continuation.resume() }
    }

    func openAll() {
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.allOpen = true
            defer { state.waiting.removeAll() }
            return state.waiting.values.flatMap { $0 }
        }
        for continuation in released { continuation.resume() }
    }

    func wait(_ name: String) async {
        await withCheckedContinuation { continuation in
            let passes = state.withLock { state -> Bool in
                if state.allOpen || state.open.contains(name) { return true }
                state.waiting[name, default: []].append(continuation)
                return false
            }
            if passes { continuation.resume() }
        }
    }
}

/// One request and the means to answer it.
struct Exchange {
    let server: TestImageServer
    let connection: Int
    let channel: any Channel
    let outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    let head: HTTPRequestHead
    /// The request's place in the log.
    let sequence: Int

    /// The path segments after the leading slash (query removed).
    var segments: [String] {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        return path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
    }

    /// The query value for `name`, if given.
    func query(_ name: String) -> String? {
        URLComponents(string: head.uri)?.queryItems?.first { $0.name == name }?.value
    }

    /// An integer query value, or `fallback`.
    func query(_ name: String, default fallback: Int) -> Int {
        query(name).flatMap(Int.init) ?? fallback
    }

    func header(_ name: String) -> String? {
        head.headers.first(name: name)
    }

    func file(_ name: String) -> ServedFile? {
        server.files.withLock { $0[name] }
    }

    func sendHead(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) async throws {
        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
    }

    func sendBody(_ bytes: Data) async throws {
        guard !bytes.isEmpty else { return }
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        let sequence = self.sequence
        server.update { $0.log.requests[sequence].bodyBytesSent += bytes.count }
    }

    /// Sends `bytes` in pieces of `piece` bytes, each counted once the connection took it: a client that stops
    /// reading early leaves the rest unsent.
    func sendBody(_ bytes: Data, inPiecesOf piece: Int) async throws {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let end = min(bytes.endIndex, offset + piece)
            try await sendBody(bytes[offset..<end])
            offset = end
        }
    }

    func sendEnd() async throws {
        try await outbound.write(.end(nil))
    }

    /// Writes bytes straight to the connection, past the HTTP encoder: for responses no encoder would produce.
    /// HTTP/1.1 connections only.
    func sendRaw(_ bytes: Data) async throws {
        let channel = self.channel
        try await channel.eventLoop.flatSubmit {
            do {
                let encoder = try channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
                return encoder.writeAndFlush(NIOAny(ByteBuffer(bytes: bytes)))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }.get()
    }

    /// A whole response with `Content-Length`.
    func send(_ status: HTTPResponseStatus, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) async throws {
        var headers = headers
        if !headers.contains(name: "Content-Length") {
            headers.add(name: "Content-Length", value: String(body.count))
        }
        try await sendHead(status, headers)
        try await sendBody(body)
        try await sendEnd()
    }

    /// A short plain-text response.
    func sendText(_ status: HTTPResponseStatus, _ text: String, headers: HTTPHeaders = HTTPHeaders()) async throws {
        var headers = headers
        headers.add(name: "Content-Type", value: "text/plain")
        try await send(status, headers: headers, body: Data(text.utf8))
    }

    /// Closes the connection with a FIN, noted as the server's doing.
    func closeCleanly() async {
        server.update { $0.connections[connection]?.closingByServer = true }
        try? await channel.close()
    }

    /// Aborts the connection with a TCP reset (SO_LINGER 0), noted as the server's doing.
    func reset() async {
        server.update { $0.connections[connection]?.closingByServer = true }
        if let provider = channel as? SocketOptionProvider {
            try? await provider.setSoLinger(NIOLinger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    /// Waits until the client closes the connection (or the server shuts down).
    func waitForClientToLeave() async {
        try? await channel.closeFuture.get()
    }
}
