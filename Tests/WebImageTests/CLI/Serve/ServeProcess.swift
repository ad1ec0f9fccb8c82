import AsyncHTTPClient
import Foundation
import NIOCore
import TestImageServer

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// A `webimage serve` process started by a test: its address read from the "listening on" line, requests sent
/// with AsyncHTTPClient, stopped with a signal.
final class ServeProcess: Sendable {
    let process: SpawnedProcess
    let address: String
    private let output: URL
    private let errorOutput: URL

    /// Starts `webimage serve ARGUMENTS` and waits (on a thread of its own) for its "listening on" line.
    static func start(_ arguments: [String], environment: [String: String] = [:]) async throws -> ServeProcess {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try ServeProcess(arguments, environment: environment) })
            }.start()
        }
    }

    private init(_ arguments: [String], environment: [String: String]) throws {
        output = TestScratch.root.appendingPathComponent("serve-\(UUID().uuidString).out")
        errorOutput = output.appendingPathExtension("err")
        for file in [output, errorOutput] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = try SpawnedProcess(CommandLineTool.executable.path, ["serve"] + arguments,
                                         environment: CommandLineTool.environment.merging(environment) { $1 },
                                         output: .file(output.path), errors: .file(errorOutput.path))
        self.process = process
        // The line comes once the socket is bound: poll the output file (a pipe could fill and block the child).
        var line: String?
        for _ in 0..<6_000 where line == nil && process.isRunning {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            line = text.split(separator: "\n").first { $0.hasPrefix("listening on ") }.map(String.init)
            if line == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        guard let line else {
            process.send(SIGTERM)
            throw ServeProcessError("webimage serve did not print its listening line")
        }
        address = String(line.dropFirst("listening on ".count))
    }

    /// Everything the process printed on stdout so far.
    var standardOutput: String { String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self) }

    /// Everything the process logged on stderr so far.
    var standardError: String { String(decoding: (try? Data(contentsOf: errorOutput)) ?? Data(), as: UTF8.self) }

    /// GETs (or HEADs) `path` from the server, with `headers` added to the request.
    func get(_ path: String, head: Bool = false, headers: [(String, String)] = []) async throws
        -> (status: Int, headers: [(String, String)], body: Data)
    {
        var request = HTTPClientRequest(url: address + path)
        if head { request.method = .HEAD }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), response.headers.map { ($0.name, $0.value) }, Data(body.readableBytesView))
    }

    /// Whether a TCP connection to the server's port opens now (a plain `connect`, answered at once either way).
    func acceptsConnections() -> Bool {
        guard let url = URL(string: address), let port = url.port else { return false }
        let socket = socket(AF_INET, streamSocket, 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(port).bigEndian)
        target.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() async -> Int32 {
        process.send(SIGTERM)
        return await process.waitForExit()
    }

    deinit {
        process.send(SIGTERM)
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: errorOutput)
    }
}

struct ServeProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
