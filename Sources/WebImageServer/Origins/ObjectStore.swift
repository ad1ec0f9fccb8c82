import Foundation

/// An object store that `s3://bucket/key` or `gs://bucket/key` sources are read from (imgproxy's
/// `IMGPROXY_USE_S3` and `IMGPROXY_USE_GCS`), through its HTTP API with signed requests.
///
/// The object is fetched by the same downloader as an `http` source, so it shares their caches (under the
/// `s3://` URL), their coalescing, their size limit, their timeout and their early stops. The endpoint is the
/// operator's own, so the private-address policy does not apply to it (a MinIO on the same network is the common
/// case); redirects from it are not followed.
public struct ObjectStore: Sendable {
    /// Which API the store speaks.
    public enum Provider: Sendable, Equatable {
        /// Amazon S3 and the stores that speak its API (MinIO, Cloudflare R2, Ceph): `s3://` sources, requests
        /// signed with AWS Signature Version 4.
        case s3
        /// Google Cloud Storage's XML API with an HMAC key: `gs://` sources, requests signed with the same scheme
        /// under Google's names (`GOOG4-HMAC-SHA256`).
        case googleCloudStorage
    }

    /// Which API the store speaks, and so which sources it serves.
    public var provider: Provider
    /// Where requests go, as `https://minio.internal:9000`. `nil`: AWS's endpoint for ``region``
    /// (`https://s3.<region>.amazonaws.com`), or `https://storage.googleapis.com` for Google Cloud Storage.
    public var endpoint: URL?
    /// The region requests are signed for (imgproxy's `IMGPROXY_S3_REGION`). Default `us-east-1`; Google Cloud
    /// Storage signs for `auto` whatever this says.
    public var region = "us-east-1"
    /// Whether a configured ``endpoint`` is asked for `/bucket/key` (path style, which MinIO and most
    /// self-hosted stores need) rather than `bucket.host/key` (imgproxy's `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE`).
    /// Default on. AWS's own endpoint is always asked in the virtual-host style (but for bucket names with a dot,
    /// which its certificate does not cover).
    public var usesPathStyle = true
    /// The access key's identifier (an HMAC key's for Google Cloud Storage).
    public var accessKeyID: String
    /// The access key's secret.
    public var secretAccessKey: String
    /// A temporary credential's session token (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    public var sessionToken: String?
    /// When not empty, the only buckets read; others are refused (404) before anything is sent.
    public var allowedBuckets: [String] = []
    /// Buckets never read, unless ``allowedBuckets`` names them (an allowed bucket wins, as in imgproxy).
    public var deniedBuckets: [String] = []

    /// A store read with the given key.
    public init(provider: Provider, accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.provider = provider
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The source scheme this store serves: `s3` or `gs`.
    public var scheme: String { provider == .s3 ? "s3" : "gs" }

    /// The endpoint requests go to, the default one when none is configured.
    var resolvedEndpoint: URL {
        if let endpoint { return endpoint }
        switch provider {
        case .s3: return URL(string: "https://s3.\(region).amazonaws.com")!
        case .googleCloudStorage: return URL(string: "https://storage.googleapis.com")!
        }
    }

    /// Whether `bucket` may be read: only the allowed ones when some are listed, else all but the denied ones.
    func allows(bucket: String) -> Bool {
        allowedBuckets.isEmpty ? !deniedBuckets.contains(bucket) : allowedBuckets.contains(bucket)
    }

    /// The signer for this store's requests.
    var signer: SigV4Signer {
        let credentials = SigV4Signer.Credentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey,
                                                  sessionToken: sessionToken)
        switch provider {
        case .s3: return SigV4Signer(dialect: .aws, credentials: credentials, region: region, service: "s3")
        case .googleCloudStorage:
            return SigV4Signer(dialect: .google, credentials: credentials, region: "auto", service: "storage")
        }
    }
}

extension ObjectStore {
    /// An object a source URL names: its bucket, its key (as stored, not escaped) and the version asked for.
    struct Object: Equatable {
        let bucket: String
        let key: String
        /// The text after `?` (imgproxy's form `s3://bucket/key?version`): an S3 version id, a GCS generation.
        let version: String?

        /// The object `url` (`s3://bucket/key[?version]`) names; `nil` without a bucket or a key, or for a key
        /// with a `.` or `..` segment, which a server or proxy on the way may resolve into another key.
        init?(_ url: URL) {
            guard let bucket = url.host(percentEncoded: false), !bucket.isEmpty else { return nil }
            let path = url.path(percentEncoded: false)
            let key = path.hasPrefix("/") ? String(path.dropFirst()) : path
            guard !key.isEmpty,
                  !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." })
            else { return nil }
            self.bucket = bucket
            self.key = key
            let version = url.query(percentEncoded: false)
            self.version = version?.isEmpty == false ? version : nil
        }
    }

    /// The HTTP URL of `object` at this store's endpoint, its key escaped once, as the signature covers it.
    func httpURL(for object: Object) -> URL? {
        guard var components = URLComponents(url: resolvedEndpoint, resolvingAgainstBaseURL: false),
              let host = components.host else { return nil }
        let key = SigV4Signer.encode(object.key, keepsSlashes: true)
        var base = components.percentEncodedPath
        while base.hasSuffix("/") { base.removeLast() }
        // AWS's own endpoint takes the bucket as a host name; a dotted bucket name would fail its certificate.
        let virtualHost = provider == .s3 && !object.bucket.contains(".") && (endpoint == nil || !usesPathStyle)
        if virtualHost {
            components.host = "\(object.bucket).\(host)"
            components.percentEncodedPath = "\(base)/\(key)"
        } else {
            components.percentEncodedPath = "\(base)/\(SigV4Signer.encode(object.bucket))/\(key)"
        }
        if let version = object.version {
            let name = provider == .s3 ? "versionId" : "generation"
            components.percentEncodedQuery = "\(name)=\(SigV4Signer.encode(version))"
        } else {
            components.percentEncodedQuery = nil
        }
        return components.url
    }
}
