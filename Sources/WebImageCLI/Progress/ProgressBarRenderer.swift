/// Turns a ``ProgressSnapshot`` into one line of text: a pure function, so the tests can check every character.
///
/// `[#########...........]  12/100 images  1.2 MB  340.0 kB/s  0:05 left`
///
/// The bar takes whatever width the counters leave; it is dropped when fewer than 10 columns remain.
enum ProgressBarRenderer {
    static func render(_ snapshot: ProgressSnapshot, width: Int) -> String {
        var counters = "\(snapshot.completedImages)/\(snapshot.totalImages) images  "
        counters += formatBytes(snapshot.receivedBytes)
        if let expected = snapshot.expectedBytes, snapshot.bytesCoverEveryImage {
            counters += " of " + formatBytes(expected)
        }
        counters += "  " + (snapshot.bytesPerSecond.map { formatBytes(Int64($0)) + "/s" } ?? "-- B/s")
        counters += "  " + (snapshot.secondsLeft.map { formatDuration($0) + " left" } ?? "--:-- left")
        let barWidth = width - counters.count - 4  // "[", "]" and two spaces
        guard barWidth >= 10 else { return String(counters.prefix(max(0, width))) }
        let filled = Int((snapshot.fractionCompleted * Double(barWidth)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]  "
            + counters
    }

    /// Bytes in decimal units with one decimal: `512 B`, `1.5 kB`, `12.3 MB`, `4.0 GB`.
    static func formatBytes(_ bytes: Int64) -> String {
        let value = Double(max(0, bytes))
        if value < 1000 { return "\(Int64(value)) B" }
        // The unit is chosen after rounding, so 999 950 bytes reads 1.0 MB rather than 1000.0 kB.
        for (unit, size) in [("kB", 1e3), ("MB", 1e6), ("GB", 1e9)]
        where (value / size * 10).rounded() < 10_000 || unit == "GB" {
            return oneDecimal(value / size) + " " + unit
        }
        return "\(Int64(value)) B"
    }

    /// `m:ss` under an hour, `h:mm:ss` above; seconds rounded up so the last second shows `0:01`.
    static func formatDuration(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(min(seconds, 359_999).rounded(.up)) : 359_999
        let hours = total / 3600, minutes = total / 60 % 60, rest = total % 60
        let paddedSeconds = rest < 10 ? "0\(rest)" : "\(rest)"
        if hours > 0 { return "\(hours):" + (minutes < 10 ? "0\(minutes)" : "\(minutes)") + ":" + paddedSeconds }
        return "\(minutes):" + paddedSeconds
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
