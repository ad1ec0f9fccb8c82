#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

/// How `webimage serve` writes its log lines, imgproxy's `IMGPROXY_LOG_FORMAT`:
/// - `pretty`: for people, ``BufferedLogHandler``'s lines (`2026-11-28T20:30:00+0000 info webimage.serve : GET /…`).
/// - `structured`: logfmt, as imgproxy writes it: `time="2026-11-28 20:30:00" level="INFO" msg="…" key=value`.
/// - `json`: one JSON object a line: `{"time":"2026-11-28 20:30:00","level":"INFO","msg":"…","key":"value"}`.
/// - `gcp`: JSON with Google Cloud Logging's field names: `severity` and `message` for `level` and `msg`.
///
/// The time is local, to the second, as imgproxy's; levels are imgproxy's names (`DEBUG`, `INFO`, `WARNING`,
/// `ERROR`, `CRITICAL`: swift-log's `trace` is `DEBUG`, `notice` is `INFO`), which are GCP's severities too.
package enum LogLineFormat: String, Sendable, CaseIterable {
    case pretty, structured, json, gcp

    /// imgproxy's name of `level`.
    static func levelName(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "DEBUG"
        case .info, .notice: "INFO"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }

    /// A whole line (without its line feed) in this format, at `time` (seconds since 1970). `pretty` writes the
    /// plain message, as `webimage serve` writes the lines before its log starts.
    package func line(level: Logger.Level, message: String, metadata: Logger.Metadata = [:],
                     time: Int = Int(Date().timeIntervalSince1970)) -> String {
        var line: [UInt8] = []
        write(level: level, message: message, metadata: metadata, time: time, into: &line)
        return String(decoding: line, as: UTF8.self)
    }

    func write(level: Logger.Level, message: String, metadata: Logger.Metadata, time: Int,
               into line: inout [UInt8]) {
        let fields = metadata.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        switch self {
        case .pretty:
            line.append(contentsOf: message.utf8)
        case .structured:
            line.append(contentsOf: "time=\"".utf8)
            Self.writeTime(time, into: &line)
            line.append(contentsOf: "\" level=\"\(Self.levelName(level))\" msg=".utf8)
            Self.writeQuoted(message, into: &line)
            for (key, value) in fields {
                line.append(UInt8(ascii: " "))
                line.append(contentsOf: key.utf8)
                line.append(UInt8(ascii: "="))
                // Quoted when a reader could take it for more than one value, as logfmt writers do.
                if value.isEmpty || value.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "=")
                    || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F }) {
                    Self.writeQuoted(value, into: &line)
                } else {
                    line.append(contentsOf: value.utf8)
                }
            }
        case .json, .gcp:
            line.append(contentsOf: "{\"time\":\"".utf8)
            Self.writeTime(time, into: &line)
            line.append(contentsOf: (self == .gcp ? "\",\"severity\":\"" : "\",\"level\":\"").utf8)
            line.append(contentsOf: "\(Self.levelName(level))\",".utf8)
            Self.writeQuoted(self == .gcp ? "message" : "msg", into: &line)
            line.append(UInt8(ascii: ":"))
            Self.writeQuoted(message, into: &line)
            for (key, value) in fields {
                line.append(UInt8(ascii: ","))
                Self.writeQuoted(key, into: &line)
                line.append(UInt8(ascii: ":"))
                Self.writeQuoted(value, into: &line)
            }
            line.append(UInt8(ascii: "}"))
        }
    }

    /// `text` in double quotes, escaped as JSON strings are (which a logfmt reader reads too): `"` and `\`, and
    /// every control character, so that a line is always one line whatever a path or a message holds.
    static func writeQuoted(_ text: String, into line: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        line.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): line.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): line.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): line.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): line.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): line.append(contentsOf: "\\t".utf8)
            case ..<0x20, 0x7F:
                line.append(contentsOf: "\\u00".utf8)
                line.append(hex[Int(byte >> 4)])
                line.append(hex[Int(byte & 0xF)])
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    /// `2026-11-28 20:30:00`, local time, as imgproxy's Go `time.DateTime`.
    static func writeTime(_ seconds: Int, into line: inout [UInt8]) {
        var time = seconds, parts = tm()
        localtime_r(&time, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%d %H:%M:%S", &parts)
        line.append(contentsOf: text.prefix(count).map { UInt8(bitPattern: $0) })
    }
}
