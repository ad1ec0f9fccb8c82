import Testing
@testable import WebImage

/// The loader's own DNS messages: which names are asked at all, the query's bytes, and reading answers (with
/// compressed names and CNAME chains), errors and strangers' datagrams.
@Suite struct DNSMessageTests {
    @Test(arguments: ["c2.rebind.example", "C2.Rebind.Example", "a-b_c.example.", "2130706433", "localhost"])
    func dnsNamesAreAsked(name: String) {
        #expect(DNSMessage.isValidName(name))
    }

    @Test(arguments: ["8.8.8.8%x.some.name", "a..example", ".example", "", "exa mple.test", "ünï.example",
                      String(repeating: "a", count: 64) + ".example"])
    func otherHostsAreNot(name: String) {
        #expect(!DNSMessage.isValidName(name))
    }

    @Test func aQueryCarriesItsIDNameAndType() {
        let query = DNSMessage.query(id: 0x1234, name: "a.bc", type: .aaaa)
        #expect(query == [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x61, 2, 0x62, 0x63, 0, 0, 28, 0, 1])
    }

    /// An answer to `query` with `records` (each: type, data) under compressed names, and `code` in the flags.
    /// An answer to `query` with `records` (each: type, data, TTL in seconds) under compressed names, and `code`
    /// in the flags.
    private func answer(to query: [UInt8], code: UInt8 = 0, records: [(UInt16, [UInt8], UInt32)]) -> [UInt8] {
        var message = [query[0], query[1], 0x81, 0x80 | code, 0, 1, 0, UInt8(records.count), 0, 0, 0, 0]
        message += query[12...]
        for (type, data, ttl) in records {
            message += [0xC0, 0x0C, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
            message += withUnsafeBytes(of: ttl.bigEndian, Array.init) + [0, UInt8(data.count)]
            message += data
        }
        return message
    }

    @Test func addressesOfTheAskedTypeAreReadPastACNAME() {
        let query = DNSMessage.query(id: 7, name: "img.example", type: .a)
        let cname: [UInt8] = [3, 0x63, 0x64, 0x6E, 0xC0, 0x10]
        // The TTL is the smallest of the address records' (the CNAME's and the other type's do not count).
        let message = answer(to: query, records: [(5, cname, 5), (1, [198, 51, 100, 7], 300),
                                                  (1, [198, 51, 100, 8], 120),
                                                  (28, Array(repeating: 0, count: 16), 10)])
        #expect(DNSMessage.answer(message, id: 7, type: .a)
            == .addresses([IPAddress("198.51.100.7")!, IPAddress("198.51.100.8")!], ttl: 120))
        #expect(DNSMessage.answer(answer(to: query, records: [(5, cname, 5)]), id: 7, type: .a)
            == .addresses([], ttl: nil))
    }

    @Test func errorsAndStrangersAreTold() {
        let query = DNSMessage.query(id: 9, name: "gone.example", type: .a)
        #expect(DNSMessage.answer(answer(to: query, code: 3, records: []), id: 9, type: .a) == .failure(code: 3))
        // Another query's answer, the query itself, a truncated message: not ours to read.
        #expect(DNSMessage.answer(answer(to: query, records: []), id: 10, type: .a) == nil)
        #expect(DNSMessage.answer(query, id: 9, type: .a) == nil)
        #expect(DNSMessage.answer(Array(answer(to: query, records: [(1, [1, 2, 3, 4], 60)]).dropLast(2)),
                                  id: 9, type: .a) == nil)
    }
}
