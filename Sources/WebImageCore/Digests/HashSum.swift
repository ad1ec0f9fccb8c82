import Foundation

/// The checksums a user can ask for an image's bytes by name, as imgproxy's `/info` offers them: `md5`, `sha1`,
/// `sha256`, `sha512`.
package enum HashSum: String, CaseIterable, Sendable {
    case md5, sha1, sha256, sha512

    /// The digest of `data` in lower-case hexadecimal.
    package func hex(of data: Data) -> String {
        let digest: [UInt8] = data.withUnsafeBytes { bytes in
            switch self {
            case .md5: MD5.digest(bytes)
            case .sha1: SHA1.digest(bytes)
            case .sha256: {
                var hasher = SHA256()
                hasher.update(bytes)
                return hasher.finalizeBytes()
            }()
            case .sha512: SHA512.digest(bytes)
            }
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
