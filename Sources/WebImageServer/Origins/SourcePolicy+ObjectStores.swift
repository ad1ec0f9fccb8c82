import Foundation

extension SourcePolicy {
    /// The URL to fetch for an object store's source (`s3://bucket/key`): refused (404, as imgproxy does) when it
    /// names no object, when its bucket is not allowed, or when prefixes are configured and it starts with none of
    /// them as written (object keys are literal: no escapes or dot segments to normalise, and a key with a dot
    /// segment names no object here).
    func checkObjectSource(_ url: URL, store: ObjectStore) throws(ProxyError) -> URL {
        guard let object = ObjectStore.Object(url) else {
            throw .invalidURL("the source \"\(url.absoluteString.prefix(80))\" names no object (s3://bucket/key)")
        }
        guard store.allows(bucket: object.bucket) else {
            throw .sourceNotAllowed("the bucket \(object.bucket.prefix(64)) is not allowed")
        }
        if !allowedPrefixes.isEmpty {
            let text = url.absoluteString
            let schemeLength = (url.scheme ?? "").count
            let normal = text.prefix(schemeLength).lowercased() + text.dropFirst(schemeLength)
            guard allowedPrefixes.contains(where: { normal.hasPrefix($0) }) else {
                throw .sourceNotAllowed("the source is not under an allowed prefix")
            }
        }
        return url
    }
}
