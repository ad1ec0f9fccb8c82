import Foundation
import WebImage
import WebImageProxyURL

/// Signs requests with AWS Signature Version 4, in the header form: S3 (`AWS4-HMAC-SHA256`) and Google Cloud
/// Storage's XML API with HMAC keys, which uses the same scheme under its own names (`GOOG4-HMAC-SHA256`,
/// `x-goog-*` headers, `goog4_request`).
///
/// The signature covers the method, the path as sent, the query (sorted), the signed headers and the payload's
/// hash, under a key derived from the secret, the day, the region and the service; a store refuses a request whose
/// signature it cannot recompute (or whose date is more than 15 minutes off), so a request is signed when it is
/// sent, each attempt afresh.
struct SigV4Signer: Sendable {
    /// The names one provider gives the scheme.
    struct Dialect: Sendable {
        /// The algorithm named in `Authorization` and the string to sign.
        let algorithm: String
        /// What the secret is prefixed with to start the key derivation.
        let keyPrefix: String
        /// The last part of the credential scope.
        let terminator: String
        /// The prefix of the date, payload-hash and session-token headers.
        let headerPrefix: String

        /// Amazon S3 and the stores that speak its API (MinIO, R2, Ceph).
        static let aws = Dialect(algorithm: "AWS4-HMAC-SHA256", keyPrefix: "AWS4", terminator: "aws4_request",
                                 headerPrefix: "x-amz-")
        /// Google Cloud Storage's XML API with an HMAC key.
        static let google = Dialect(algorithm: "GOOG4-HMAC-SHA256", keyPrefix: "GOOG4", terminator: "goog4_request",
                                    headerPrefix: "x-goog-")
    }

    /// What the requests are signed with.
    struct Credentials: Sendable, Equatable {
        let accessKeyID: String
        let secretAccessKey: String
        /// A temporary credential's token, sent (and signed) as `x-amz-security-token`.
        var sessionToken: String?
    }

    let dialect: Dialect
    let credentials: Credentials
    let region: String
    let service: String

    /// The SHA-256 of an empty body, which is what a GET sends.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request for `url` (its path and query exactly as they will be sent) at `date`:
    /// the date, the session token when there is one, the payload hash when `sendsPayloadHash` (S3 and GCS require
    /// it; the generic test suite does not send it) and `Authorization`. `headers` are further headers to sign
    /// (with `host` among them), as sent.
    func signingHeaders(method: String = "GET", url: URL, headers: [(name: String, value: String)], date: Date,
                        sendsPayloadHash: Bool = true) -> [(name: String, value: String)] {
        let timestamp = Self.timestamp(date)
        var added = [(name: "\(dialect.headerPrefix)date", value: timestamp)]
        if sendsPayloadHash { added.append(("\(dialect.headerPrefix)content-sha256", Self.emptyPayloadHash)) }
        if let token = credentials.sessionToken { added.append(("\(dialect.headerPrefix)security-token", token)) }
        let canonical = canonicalRequest(method: method, url: url, headers: headers + added,
                                         payloadHash: Self.emptyPayloadHash)
        let scope = "\(timestamp.prefix(8))/\(region)/\(service)/\(dialect.terminator)"
        let toSign = [dialect.algorithm, timestamp, scope, Self.hex(Self.sha256(Array(canonical.text.utf8)))]
            .joined(separator: "\n")
        let signature = Self.hex(HMACSHA256.authenticationCode(key: signingKey(day: String(timestamp.prefix(8))),
                                                               message: Array(toSign.utf8)))
        added.append(("Authorization", "\(dialect.algorithm) Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"))
        return added
    }

    /// The canonical request (method, path, query, headers, their names, payload hash; one a line) and the
    /// signed headers' names.
    func canonicalRequest(method: String, url: URL, headers: [(name: String, value: String)],
                          payloadHash: String) -> (text: String, signedHeaders: String) {
        // Names in lower case, sorted; repeated names' values joined by commas in the order given; values trimmed,
        // with runs of spaces inside made one.
        var values: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            values[header.name.lowercased(), default: []].append(value)
        }
        let names = values.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let headerLines = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let path = url.path(percentEncoded: true)
        let text = [method, path.isEmpty ? "/" : path, Self.canonicalQuery(url.query(percentEncoded: true)),
                    headerLines, signedHeaders, payloadHash].joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// The query's parameters, each name and value encoded as the scheme says, sorted by name and then value.
    static func canonicalQuery(_ query: String?) -> String {
        guard let query, !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&").map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.removingPercentEncoding ?? String(text) }
            return (encode(decode(parts[0])), parts.count > 1 ? encode(decode(parts[1])) : "")
        }
        return pairs.sorted {
            $0.0 != $1.0 ? Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8))
                : Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8))
        }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// `text` with every byte but the unreserved ones (letters, digits, `-._~`) as `%XX` in upper-case hex, and
    /// `/` too unless `keepsSlashes` (a path's separators).
    static func encode(_ text: String, keepsSlashes: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepsSlashes:
                encoded.append("/")
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// The day's key: the secret through HMAC with the day, the region, the service and the terminator.
    private func signingKey(day: String) -> [UInt8] {
        var key = Array((dialect.keyPrefix + credentials.secretAccessKey).utf8)
        for part in [day, region, service, dialect.terminator] {
            key = HMACSHA256.authenticationCode(key: key, message: Array(part.utf8))
        }
        return key
    }

    /// `20150830T123600Z`: the basic ISO 8601 form the scheme uses, in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!,
                      parts.minute!, parts.second!)
    }

    private static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeBytes()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
