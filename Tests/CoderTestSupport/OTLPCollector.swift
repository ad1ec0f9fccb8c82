import Foundation
import TestImageServer

#if canImport(Glibc)
import Glibc
#endif

/// A real OTLP/HTTP traces receiver on a loopback port (`Tests/Peers/otlp_collector.py`), which decodes every
/// export with opentelemetry-proto's own classes, not with anything of ours: a field written under the wrong
/// number or type fails the tests. `scripts/install-deps` installs its Python packages.
public struct OTLPCollector {
    /// One export as the collector read it.
    public struct Export: Decodable, Sendable {
        public var path: String
        public var contentType: String?
        public var contentEncoding: String?
        public var apiKey: String?
        public var spans: [Span]
    }

    public struct Span: Decodable, Sendable {
        public var resource: [String: AttributeValue]
        public var scope: String
        public var traceId: String
        public var spanId: String
        public var parentSpanId: String
        public var name: String
        public var kind: Int
        public var start: String
        public var end: String
        public var attributes: [String: AttributeValue]
        public var statusCode: Int
        public var statusMessage: String

        public var startNanoseconds: UInt64 { UInt64(start) ?? 0 }
        public var endNanoseconds: UInt64 { UInt64(end) ?? 0 }
    }

    /// A JSON scalar as Python wrote an attribute's value.
    public enum AttributeValue: Decodable, Equatable, Sendable {
        case string(String)
        case number(Double)
        case bool(Bool)

        public init(from decoder: any Decoder) throws {
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
    public let endpoint: URL
    private let output: URL

    private init(endpoint: URL, output: URL) {
        self.endpoint = endpoint
        self.output = output
    }

    /// Runs `body` with a fresh collector answering every export with `status`, and stops it (by its process)
    /// afterwards, whatever `body` does.
    public static func with(answering status: Int = 200, _ body: (OTLPCollector) async throws -> Void) async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/otlp_collector.py")
        let process = try SpawnedProcess(try python(), [script.path, output.path, String(status)], output: .pipe)
        defer { process.killAndWait() }
        guard let stdout = process.outputPipe else { throw CollectorError(description: "no output pipe") }
        // Its first line is the port the kernel picked.
        var text = ""
        while !text.contains("\n") {
            let chunk = stdout.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CollectorError(description: "the collector did not start: \(text)")
        }
        try await body(OTLPCollector(endpoint: URL(string: "http://127.0.0.1:\(port)/v1/traces")!, output: output))
    }

    /// Every export received so far (complete for every export that has been answered).
    public func exports() throws -> [Export] {
        let text = try String(contentsOf: output, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Export.self, from: Data($0.utf8)) }
    }

    /// Every span received so far.
    public func spans() throws -> [Span] { try exports().flatMap(\.spans) }

    /// The Python of the venv `scripts/install-deps` makes for opentelemetry-proto.
    private static func python() throws -> String {
        let python = "/opt/webimage-otlp/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw CollectorError(description: "opentelemetry-proto is not installed (scripts/install-deps installs it)")
        }
        return python
    }

    struct CollectorError: Error, CustomStringConvertible {
        var description: String
    }
}
