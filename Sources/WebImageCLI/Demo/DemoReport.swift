import Foundation
import WebImage

/// What one stage of the demo did: counts by where images came from, bytes, time, requests the server saw.
struct DemoStage: Sendable {
    var name: String
    var images = 0
    var bytes = 0
    var network = 0
    var memory = 0
    var disk = 0
    var failed = 0
    var seconds = 0.0
    var requests = 0

    /// Adds one load's outcome.
    mutating func count(_ result: Result<LoadedImage, ImageError>) {
        images += 1
        switch result {
        case .success(let loaded):
            bytes += loaded.data?.count ?? 0
            switch loaded.cacheType.jsonName {
            case "memory": memory += 1
            case "disk": disk += 1
            default: network += 1
            }
        case .failure:
            failed += 1
        }
    }

    /// The stage as one JSON line.
    var json: JSONValue {
        .object([("stage", .string(name)), ("images", .int(images)), ("bytes", .int(bytes)),
                 ("network", .int(network)), ("memory", .int(memory)), ("disk", .int(disk)),
                 ("failed", .int(failed)), ("requests", .int(requests)), ("seconds", .double(seconds))])
    }
}

/// The demo's closing table, as plain text with aligned columns.
enum DemoReport {
    static let headers = ["stage", "images", "bytes", "network", "memory", "disk", "failed", "requests", "time"]

    /// The table of `stages`: a header row, a rule, one row per stage. Numbers are right-aligned.
    static func table(_ stages: [DemoStage]) -> String {
        let rows = stages.map { stage in
            [stage.name, "\(stage.images)", ProgressBarRenderer.formatBytes(Int64(stage.bytes)), "\(stage.network)",
             "\(stage.memory)", "\(stage.disk)", "\(stage.failed)", "\(stage.requests)", formatSeconds(stage.seconds)]
        }
        return align([headers] + rows)
    }

    /// How many images of each kind, in the kinds' order: `JPEG baseline 20, JPEG progressive 10, …`.
    static func kinds(_ images: [DemoImage]) -> String {
        DemoImage.Kind.allCases.compactMap { kind in
            let count = images.filter { $0.kind == kind }.count
            return count > 0 ? "\(kind.rawValue) \(count)" : nil
        }.joined(separator: ", ")
    }

    /// Seconds with three decimals: `0.123 s`.
    static func formatSeconds(_ seconds: Double) -> String {
        String(format: "%.3f s", seconds)
    }

    /// Rows as text: the first column left-aligned, the others right-aligned, two spaces between columns, and a
    /// rule under the first row.
    static func align(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        func pad(_ text: String, _ column: Int) -> String {
            let fill = String(repeating: " ", count: widths[column] - text.count)
            return column == 0 ? text + fill : fill + text
        }
        var lines = rows.map { row in (0..<row.count).map { pad(row[$0], $0) }.joined(separator: "  ") }
        if lines.count > 1 {
            lines.insert(String(repeating: "-", count: widths.reduce(0, +) + 2 * max(0, columns - 1)), at: 1)
        }
        return lines.map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n")
    }
}
