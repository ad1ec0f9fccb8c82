import Foundation
import Testing
@testable import WebImage

/// The three HTTP date forms and the cookie variants give the same instant; anything that is not a real date
/// gives `nil`.
@Suite("HTTP dates")
struct HTTPDateParsingTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    static let instant = Date(timeIntervalSince1970: 784_111_777)

    @Test("each form names the same instant", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "sun, 06 NOV 1994 08:49:37 gmt",
        "  Sun, 06 Nov 1994 08:49:37 GMT  ",
        "Sun, 06-Nov-1994 08:49:37 GMT",
        "06 Nov 1994 08:49:37",
    ])
    func forms(text: String) {
        #expect(HTTPDate.parse(text) == Self.instant)
    }

    @Test("calendar arithmetic across leap years and centuries")
    func calendar() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 23:59:59 GMT") == Date(timeIntervalSince1970: 951_868_799))
        #expect(HTTPDate.parse("Wed, 01 Mar 2100 00:00:00 GMT") == Date(timeIntervalSince1970: 4_107_542_400))
        #expect(HTTPDate.parse("Fri, 31 Dec 1969 23:59:59 GMT") == Date(timeIntervalSince1970: -1))
        #expect(HTTPDate.parse("Tue, 24 Nov 2026 13:36:33 GMT") == Date(timeIntervalSince1970: 1_795_527_393))
    }

    @Test("two-digit years: 70–99 are 19xx, 00–69 are 20xx")
    func twoDigitYears() {
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Saturday, 01-Jan-00 00:00:00 GMT") == Date(timeIntervalSince1970: 946_684_800))
    }

    @Test("not a date", arguments: [
        "", "0", "-1", "never", "Sun, 06 Nov 1994 GMT", "Sun, 06 Nov 08:49:37 GMT", "Sun, Nov 1994 08:49:37 GMT",
        "Sun, 30 Feb 1994 08:49:37 GMT", "Sun, 31 Apr 1994 08:49:37 GMT", "Sat, 29 Feb 2100 00:00:00 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1500 08:49:37 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Non 1994 08:49:37 GMT",
    ])
    func notADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
