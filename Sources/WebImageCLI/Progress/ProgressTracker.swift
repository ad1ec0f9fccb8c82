import Foundation

/// Collects progress from concurrent loads and redraws the progress line on stderr, at most ten times a second.
///
/// It draws only when stderr is a terminal and the command was not asked to be quiet: a pipe or a log file gets
/// nothing. Loads are numbered by the caller (their position in the batch).
actor ProgressTracker {
    private struct Load { var received: Int64 = 0; var expected: Int64? }

    private let totalImages: Int
    private let start = ContinuousClock.now
    private var loads: [Int: Load] = [:]
    private var completed = 0
    private var line: TerminalLine?
    private var lastDraw: ContinuousClock.Instant?

    /// A tracker for `totalImages` loads; `enabled: false` (or a stderr that is not a terminal) draws nothing.
    init(totalImages: Int, enabled: Bool) {
        self.totalImages = totalImages
        self.line = enabled ? TerminalLine.standardError() : nil
    }

    /// Load `index` has received `received` bytes of `expected` (when announced).
    func update(_ index: Int, received: Int64, expected: Int64?) {
        var load = loads[index] ?? Load()
        load.received = max(load.received, received)
        if let expected { load.expected = expected }
        loads[index] = load
        draw(force: false)
    }

    /// Load `index` is over (whatever its outcome).
    func finish(_ index: Int) {
        completed += 1
        draw(force: completed == totalImages)
    }

    /// Where the batch stands now.
    func snapshot() -> ProgressSnapshot {
        let elapsed = ContinuousClock.now - start
        let announced = loads.values.compactMap(\.expected)
        return ProgressSnapshot(
            completedImages: completed, totalImages: totalImages,
            receivedBytes: loads.values.reduce(0) { $0 + $1.received },
            expectedBytes: announced.isEmpty ? nil : announced.reduce(0, +),
            bytesCoverEveryImage: announced.count == totalImages,
            elapsedSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Clears the line so a result line can be printed; the next update draws the bar again.
    func interrupt() {
        line?.clear()
        lastDraw = nil
    }

    /// Removes the progress line, so what follows starts on a clean line.
    func end() {
        line?.clear()
        line = nil
    }

    private func draw(force: Bool) {
        guard let line else { return }
        let now = ContinuousClock.now
        if !force, let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        line.show(ProgressBarRenderer.render(snapshot(), width: line.width - 1))
    }
}

/// One line of a terminal that is redrawn in place: carriage return, the text, erase to the end of the line.
struct TerminalLine: Sendable {
    let descriptor: Int32
    /// Columns available; from `$COLUMNS` when set (shells export it to children only sometimes), else 80.
    let width: Int

    /// The line on stderr, or `nil` when stderr is not a terminal.
    static func standardError(environment: [String: String] = ProcessInfo.processInfo.environment) -> TerminalLine? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        let columns = environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 >= 20 ? $0 : nil } ?? 80
        return TerminalLine(descriptor: STDERR_FILENO, width: columns)
    }

    func show(_ text: String) { send("\r" + text + "\u{1B}[K") }

    func clear() { send("\r\u{1B}[K") }

    private func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            guard written > 0 else { return }  // a closed terminal: nothing to draw on
            offset += written
        }
    }
}
