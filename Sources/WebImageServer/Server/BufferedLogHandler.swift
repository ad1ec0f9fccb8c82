#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging
import WebImage

/// A log handler that writes to standard error in batches: one `write` for many access-log lines instead of one
/// per request, and the timestamp formatted once a second. Lines at `warning` and above, and a batch a second old,
/// are written at once, so nothing waits long and problems show when they happen.
///
/// `webimage serve` logs through it; bootstrap it once per process:
/// ```swift
/// let output = BufferedLogOutput.standardError
/// LoggingSystem.bootstrap { BufferedLogHandler(label: $0, output: output) }
/// ```
/// Lines are ``LogLineFormat/pretty`` by default; the other formats (logfmt, JSON) are written by the same handler,
/// so every line of a process takes one path to standard error whatever its format.
package struct BufferedLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    private let label: String
    private let output: BufferedLogOutput
    private let format: LogLineFormat
    /// An `info` line's start without metadata, made once (the access log writes one a request).
    private let infoPrefix: [UInt8]

    /// A handler for `label` writing `format`'s lines through `output`.
    package init(label: String, output: BufferedLogOutput, format: LogLineFormat = .pretty) {
        self.label = label
        self.output = output
        self.format = format
        var prefix: [UInt8] = []
        Self.writePrefix(level: .info, label: label, metadata: [:], into: &prefix)
        infoPrefix = prefix
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var message = "\(event.message)"
        if let error = event.error { message += " (\(error))" }
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        guard format == .pretty else {
            write(level: event.level, message: message, metadata: merged)
            return
        }
        output.appendLine(urgent: event.level >= .warning) { line in
            Self.writePrefix(level: event.level, label: label, metadata: merged, into: &line)
            line.append(contentsOf: message.utf8)
        }
    }

    /// Writes an `info` line (when this handler writes them) whose message `writeMessage` puts straight into the
    /// buffer: the access log's line a request, without the strings and the log event a `Logger` call makes.
    func info(_ writeMessage: (inout [UInt8]) -> Void) {
        guard logLevel <= .info else { return }
        guard format == .pretty else {
            var message: [UInt8] = []
            writeMessage(&message)
            write(level: .info, message: String(decoding: message, as: UTF8.self), metadata: metadata)
            return
        }
        output.appendLine(urgent: false) { line in
            if metadata.isEmpty {
                line.append(contentsOf: infoPrefix)
            } else {
                Self.writePrefix(level: .info, label: label, metadata: metadata, into: &line)
            }
            writeMessage(&line)
        }
    }

    /// A whole line in a format other than `pretty`, which stamps its own time.
    private func write(level: Logger.Level, message: String, metadata: Logger.Metadata) {
        output.appendLine(urgent: level >= .warning, stamped: false) { line in
            format.write(level: level, message: message, metadata: metadata, time: Int(Date().timeIntervalSince1970),
                         into: &line)
        }
    }

    /// A line's start, after the timestamp: ` LEVEL LABEL : [KEY=VALUE ...] ` (metadata sorted by key).
    private static func writePrefix(level: Logger.Level, label: String, metadata: Logger.Metadata,
                                    into line: inout [UInt8]) {
        var prefix = " \(level) \(label) :"
        if !metadata.isEmpty {
            prefix += " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line.append(contentsOf: prefix.utf8)
        line.append(UInt8(ascii: " "))
    }
}

/// Where ``BufferedLogHandler``s write: a buffer for one file descriptor, written when it holds 64 KB, when a line
/// is urgent (`warning` and above), and when its oldest line is a second old (checked as lines come and, for
/// standard error, by a thread every second), and at exit.
package final class BufferedLogOutput: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var oldest: UInt64?
        var second: Int = -1
        var stamp = ""
    }

    /// The process's standard error, flushed every second and at exit.
    package static let standardError: BufferedLogOutput = {
        let output = BufferedLogOutput(descriptor: 2)
        output.startFlushing()
        atexit { BufferedLogOutput.standardError.flush(ifOlderThan: 0) }
        return output
    }()

    private let descriptor: Int32
    /// How long, in nanoseconds, a line may wait in the buffer.
    private let patience: UInt64
    /// How many bytes make a batch that is written at once.
    private let batchBytes: Int
    private let state = Locked(State())

    /// An output to `descriptor` whose lines wait at most `patience` nanoseconds (checked as lines come, or by
    /// a flushing thread) and are written in batches of `batchBytes`.
    init(descriptor: Int32, patience: UInt64 = 1_000_000_000, batchBytes: Int = 64 * 1024) {
        self.descriptor = descriptor
        self.patience = patience
        self.batchBytes = batchBytes
    }

    /// Starts the thread that writes batches a second old.
    private func startFlushing() {
        let flusher = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                flush(ifOlderThan: patience)
            }
        }
        flusher.name = "webimage.log-flusher"
        flusher.start()
    }

    /// Adds a line: the current second as `2026-11-26T08:30:00+0000` (formatted once a second), what `write`
    /// appends, and a line feed; written at once when `urgent`, when the batch is full or a second old. Not
    /// `stamped`: the line is what `write` appends alone (a format that writes its own time).
    func appendLine(urgent: Bool, stamped: Bool = true, _ write: (inout [UInt8]) -> Void) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // Written while the lock is held, so batches reach the descriptor in the order their lines came. The time
        // is read under the lock too: read before it, another thread's later line could already be the oldest.
        state.withLock { state in
            if state.second != now.tv_sec {
                state.second = now.tv_sec
                var time = now.tv_sec, parts = tm()
                localtime_r(&time, &parts)
                var text = [CChar](repeating: 0, count: 32)
                let count = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
                state.stamp = String(decoding: text.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            if stamped { state.buffer.append(contentsOf: state.stamp.utf8) }
            write(&state.buffer)
            state.buffer.append(UInt8(ascii: "\n"))
            let uptime = DispatchTime.now().uptimeNanoseconds
            let oldest = state.oldest ?? uptime
            state.oldest = oldest
            if urgent || state.buffer.count >= batchBytes || uptime - oldest >= patience { emit(&state) }
        }
    }

    /// Writes what is buffered when its oldest line has waited `age` nanoseconds or more.
    func flush(ifOlderThan age: UInt64) {
        state.withLock { state in
            guard let oldest = state.oldest, DispatchTime.now().uptimeNanoseconds - oldest >= age else { return }
            emit(&state)
        }
    }

    /// Writes the buffered lines and empties the buffer.
    private func emit(_ state: inout State) {
        defer {
            state.buffer.removeAll(keepingCapacity: true)
            state.oldest = nil
        }
        state.buffer.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // a closed or full standard error: the lines are lost, the server goes on
                }
                offset += written
            }
        }
    }
}
