import Foundation

/// HTTP dates (RFC 9110 §5.6.7), read and written without a date formatter. Read here: the IMF-fixdate servers must send
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`) forms recipients must still read, and the variants cookies use.
///
/// Why by hand: a `DateFormatter` per call took 18% of the CPU of a cold 200-image load, since every response's
/// `Date`, `Expires` and `Last-Modified` are read, and a shared one is not `Sendable`.
///
/// The algorithm is the tolerant one of RFC 6265 §5.1.1, which reads all three forms: the text is split at
/// delimiters and the first token shaped like a time, a day of the month, a month name and a year fills each
/// field. All four must be found, and the date must exist. Two-digit years 70–99 are 19xx and 00–69 are 20xx.
/// The zone is always GMT: HTTP dates have no other. Written (`HTTPDate+Formatting.swift`): the IMF-fixdate form
/// only, as RFC 9110 requires of senders.
///
/// `package`: the loaders read dates here, and the proxy in `WebImageServer` writes its `Last-Modified` with it.
package enum HTTPDate {
    /// The date `text` names, or `nil` if it is not an HTTP date (an `Expires: 0`, say).
    package static func parse(_ text: String) -> Date? {
        var fields = Fields()
        var token: [UInt8] = []
        token.reserveCapacity(16)
        for byte in text.utf8 {
            if isDelimiter(byte) {
                fields.take(token)
                token.removeAll(keepingCapacity: true)
            } else {
                token.append(byte)
            }
        }
        fields.take(token)
        return fields.date
    }

    /// RFC 6265's delimiters: tab, space to `/`, `;` to `@`, `[` to `` ` ``, `{` to `~`. Digits, `:`, letters and
    /// bytes over 127 are token characters.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x20...0x2F, 0x3B...0x40, 0x5B...0x60, 0x7B...0x7E: true
        default: false
        }
    }

    private struct Fields {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?

        mutating func take(_ token: [UInt8]) {
            guard !token.isEmpty else { return }
            if time == nil, let parsed = Self.time(token) {
                time = parsed
            } else if day == nil, let parsed = Self.leadingNumber(token, digits: 1...2) {
                day = parsed
            } else if month == nil, let parsed = Self.month(token) {
                month = parsed
            } else if year == nil, let parsed = Self.leadingNumber(token, digits: 2...4) {
                year = parsed
            }
        }

        var date: Date? {
            guard let time, let day, let month, var year else { return nil }
            if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
            guard year >= 1601, (1...CivilDate.days(inMonth: month, year: year)).contains(day),
                  time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
            let days = CivilDate.daysSince1970(year: year, month: month, day: day)
            let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
            return Date(timeIntervalSince1970: Double(seconds))
        }

        /// `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT`, then anything not a digit.
        private static func time(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
            var parts: [Int] = []
            var index = 0
            while parts.count < 3 {
                guard let (value, end) = number(token, from: index, digits: 1...2) else { return nil }
                parts.append(value)
                index = end
                if parts.count < 3 {
                    guard index < token.count, token[index] == UInt8(ascii: ":") else { return nil }
                    index += 1
                }
            }
            return (parts[0], parts[1], parts[2])
        }

        /// A number of `digits` digits at the start of the token, followed by nothing or a non-digit.
        private static func leadingNumber(_ token: [UInt8], digits: ClosedRange<Int>) -> Int? {
            number(token, from: 0, digits: digits)?.value
        }

        private static func number(_ token: [UInt8], from start: Int, digits: ClosedRange<Int>)
            -> (value: Int, end: Int)?
        {
            var value = 0
            var index = start
            while index < token.count, let digit = Self.digit(token[index]) {
                value = value * 10 + digit
                index += 1
                if index - start > digits.upperBound { return nil }
            }
            guard index - start >= digits.lowerBound else { return nil }
            return (value, index)
        }

        private static func digit(_ byte: UInt8) -> Int? {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
        }

        private static let monthNames: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
                                                     "oct", "nov", "dec"].map { Array($0.utf8) }

        /// The month (1–12) whose English name's first three letters start the token, in any case.
        private static func month(_ token: [UInt8]) -> Int? {
            guard token.count >= 3 else { return nil }
            let lowered = token.prefix(3).map { $0 | 0x20 }
            return monthNames.firstIndex { $0.elementsEqual(lowered) }.map { $0 + 1 }
        }
    }
}

/// Proleptic Gregorian calendar arithmetic for ``HTTPDate``.
private enum CivilDate {
    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        case 1...12: 31
        default: 0
        }
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days from 1970-01-01 to the date: whole years and months counted from a year that starts in March, so
    /// that the leap day falls last and every other month's length follows one formula.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
