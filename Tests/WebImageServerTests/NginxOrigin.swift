import Foundation
import TestImageServer

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// A real nginx serving files from a folder on a loopback port, with an access log: for tests that depend on how
/// an origin reads a path (nginx decodes `%2F` before resolving `..`), which the in-process test server does not
/// model. `scripts/install-deps` installs nginx.
final class NginxOrigin: Sendable {
    let port: Int
    private let folder: URL

    /// One line of the access log: the status, the path as sent and the path as nginx resolved it.
    struct Access: Equatable {
        var status: Int
        var requestURI: String
        var resolvedPath: String
    }

    /// Starts nginx on a free loopback port, serving `files` (path under the root → bytes), with `locations`
    /// (whole `location` blocks) added to its server. Returns once it listens: with `daemon on`, the command that
    /// starts it exits after binding the port.
    static func start(files: [String: Data], locations: [String] = []) async throws -> NginxOrigin {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-nginx-\(UUID().uuidString)", isDirectory: true)
        let root = folder.appendingPathComponent("www", isDirectory: true)
        for (path, data) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try data.write(to: file)
        }
        // A port that was free a moment ago may be taken by the time nginx binds it: then try another.
        var failure = ""
        for _ in 0..<5 {
            let port = try Self.freePort()
            let configuration = """
                daemon on; worker_processes 1; pid \(folder.path)/nginx.pid; error_log \(folder.path)/error.log;
                events { worker_connections 64; }
                http {
                    log_format lines '$status $request_uri $uri';
                    access_log \(folder.path)/access.log lines;
                    types { image/png png; }
                    server {
                        listen 127.0.0.1:\(port);
                        root \(root.path);
                        \(locations.joined(separator: "\n"))
                    }
                }
                """
            try configuration.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let result = try await Self.nginx(folder: folder)
            if result.status == 0 { return NginxOrigin(port: port, folder: folder) }
            failure = result.output
        }
        try? FileManager.default.removeItem(at: folder)
        throw NginxOriginError("nginx did not start: \(failure)")
    }

    private init(port: Int, folder: URL) {
        self.port = port
        self.folder = folder
    }

    /// `http://127.0.0.1:PORT` + `path`, as written (not re-encoded).
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)" + path }

    /// The requests nginx has logged. nginx logs a request as it finishes it, in the order its one worker
    /// handles them; a test reads this after an answer from nginx that followed the requests it looks for.
    var accesses: [Access] {
        let text = String(decoding: (try? Data(contentsOf: folder.appendingPathComponent("access.log"))) ?? Data(),
                          as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let status = Int(fields[0]) else { return nil }
            return Access(status: status, requestURI: String(fields[1]), resolvedPath: String(fields[2]))
        }
    }

    /// Stops nginx (`nginx -s stop`, which signals the pid in its pid file) and removes its folder.
    func stop() async {
        _ = try? await Self.nginx(folder: folder, ["-s", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs nginx on the configuration in `folder`, with `arguments` added.
    private static func nginx(folder: URL, _ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        let executable = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/opt/homebrew/bin/nginx", "/usr/local/bin/nginx"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let executable else { throw NginxOriginError("nginx is not installed (scripts/install-deps installs it)") }
        return try await ChildProcess.run(executable, ["-p", folder.path + "/", "-e", folder.path + "/error.log",
                                                       "-c", folder.appendingPathComponent("nginx.conf").path]
                                                      + arguments)
    }

    /// A loopback port nothing listens on now (bound to port 0, read back, closed).
    private static func freePort() throws -> Int {
        let socket = socket(AF_INET, streamSocket, 0)
        guard socket >= 0 else { throw NginxOriginError("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw NginxOriginError("could not bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct NginxOriginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
