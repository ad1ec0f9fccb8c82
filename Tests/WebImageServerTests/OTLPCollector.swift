import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real OTLP/HTTP traces receiver on a loopback port (`Tests/Peers/otlp_collector.py`), which decodes every
/// export with opentelemetry-proto's own classes, not with anything of ours: a field written under the wrong
/// number or type fails the tests. `scripts/install-deps` installs its Python packages.
struct OTLPCollector {
    /// One export as the collector read it.
    struct Export: Decodable {
        var path: String
        var contentType: String?
        var contentEncoding: String?
        var apiKey: String?
        var spans: [Span]
    }

    struct Span: Decodable {
        var resource: [String: AttributeValue]
        var scope: String
        var traceId: String
        var spanId: String
        var parentSpanId: String
        var name: String
        var kind: Int
        var start: String
        var end: String
        var attributes: [String: AttributeValue]
        var statusCode: Int
        var statusMessage: String

        var startNanoseconds: UInt64 { UInt64(start) ?? 0 }
        var endNanoseconds: UInt64 { UInt64(end) ?? 0 }
    }

    /// A JSON scalar as Python wrote an attribute's value.
    enum AttributeValue: Decodable, Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    /// The traces URL to export to.
    let endpoint: URL
    private let output: URL

    /// Runs `body` with a fresh collector answering every export with `status`, and stops it (by its process)
    /// afterwards, whatever `body` does.
    static func with(answering status: Int = 200, _ body: (OTLPCollector) async throws -> Void) async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try python())
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/otlp_collector.py")
        process.arguments = [script.path, output.path, String(status)]
        let stdout = Pipe()
        process.standardOutput = stdout
        try process.run()
        defer {
            // SIGKILL: a child inherits the test process's signal mask, in which SIGTERM may be blocked.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        // Its first line is the port the kernel picked.
        var text = ""
        while !text.contains("\n") {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                                "the collector did not start: \(text)")
        try await body(OTLPCollector(endpoint: URL(string: "http://127.0.0.1:\(port)/v1/traces")!, output: output))
    }

    /// Every export received so far (complete for every export that has been answered).
    func exports() throws -> [Export] {
        let text = try String(contentsOf: output, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Export.self, from: Data($0.utf8)) }
    }

    /// Every span received so far.
    func spans() throws -> [Span] { try exports().flatMap(\.spans) }

    /// The Python of the venv `scripts/install-deps` makes for opentelemetry-proto.
    private static func python() throws -> String {
        let python = "/opt/webimage-otlp/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw OTLPCollectorMissing() }
        return python
    }

    struct OTLPCollectorMissing: Error, CustomStringConvertible {
        var description: String { "opentelemetry-proto is not installed (scripts/install-deps installs it)" }
    }
}
