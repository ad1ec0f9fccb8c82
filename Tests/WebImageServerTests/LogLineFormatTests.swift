import Foundation
import Logging
import Testing

@testable import WebImageServer

/// imgproxy's log formats: each line one line, readable by a JSON or logfmt reader whatever the message holds.
@Suite struct LogLineFormatTests {
    static let awkward = "GET /a\"b\\c\nd\te\u{1}f é 200"

    @Test func jsonLinesAreOneObjectWithTheMessageAsItWas() throws {
        let line = LogLineFormat.json.line(level: .warning, message: Self.awkward, metadata: ["worker": "3"],
                                           time: 0)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["msg"] == Self.awkward && object["level"] == "WARNING" && object["worker"] == "3")
        #expect(object["time"]?.count == "2006-01-02 15:04:05".count)
        #expect(line.hasPrefix("{\"time\":\""))
    }

    @Test func gcpLinesUseSeverityAndMessage() throws {
        let line = LogLineFormat.gcp.line(level: .critical, message: "down", time: 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["severity"] == "CRITICAL" && object["message"] == "down")
        #expect(object["level"] == nil && object["msg"] == nil)
    }

    @Test func structuredLinesAreLogfmtWithQuotedMessages() {
        let line = LogLineFormat.structured.line(level: .info, message: Self.awkward,
                                                 metadata: ["plain": "ok", "spaced": "a b", "empty": ""], time: 0)
        #expect(!line.contains("\n") && line.hasPrefix("time=\""))
        #expect(line.contains(" level=\"INFO\" msg=\"GET /a\\\"b\\\\c\\nd\\te\\u0001f é 200\""))
        #expect(line.hasSuffix(" empty=\"\" plain=ok spaced=\"a b\""))
        #expect(LogLineFormat.structured.line(level: .trace, message: "m", time: 0).contains("level=\"DEBUG\""))
    }

    @Test func prettyWritesTheMessageAlone() {
        #expect(LogLineFormat.pretty.line(level: .warning, message: "warning: x", time: 0) == "warning: x")
    }
}
