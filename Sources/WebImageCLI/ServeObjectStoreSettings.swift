import Foundation
import WebImageServer

extension ServeSettings {
    /// `s3://` and `gs://` sources: `--s3` (`IMGPROXY_USE_S3`) with its endpoint, region, addressing style and
    /// buckets (`IMGPROXY_S3_*`), its key from AWS's variables or shared credentials file; `--gcs`
    /// (`IMGPROXY_USE_GCS`) with its endpoint and buckets (`IMGPROXY_GCS_*`) and an HMAC key in our own variables
    /// (imgproxy's JSON service-account key, `IMGPROXY_GCS_KEY`, is not read).
    func objectStores(_ configuration: inout ProxyConfiguration) throws {
        let options = command.objectStoreOptions
        let s3Enabled = try source.switchOn(options.s3, "USE_S3", imgproxy: ["IMGPROXY_USE_S3"])
        let s3Endpoint = try endpoint(options.s3Endpoint, flag: "--s3-endpoint", "S3_ENDPOINT",
                                      imgproxy: "IMGPROXY_S3_ENDPOINT")
        let region = source.text(options.s3Region, flag: "--s3-region", "S3_REGION", imgproxy: ["IMGPROXY_S3_REGION"])
        var usesPathStyle = true
        if options.s3VirtualHostStyle {
            usesPathStyle = false
        } else if let found = source.find("S3_ENDPOINT_USE_PATH_STYLE", imgproxy: ["IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE"]) {
            usesPathStyle = try ServeSettingSource.boolean(found)
        }
        let s3Allowed = source.list(options.s3AllowedBuckets, flag: "--s3-allowed-bucket", "S3_ALLOWED_BUCKETS",
                                    imgproxy: ["IMGPROXY_S3_ALLOWED_BUCKETS"])?.items ?? []
        let s3Denied = source.list(options.s3DeniedBuckets, flag: "--s3-denied-bucket", "S3_DENIED_BUCKETS",
                                   imgproxy: ["IMGPROXY_S3_DENIED_BUCKETS"])?.items ?? []
        if s3Enabled {
            let key = try awsKey()
            var store = ObjectStore(provider: .s3, accessKeyID: key.id, secretAccessKey: key.secret,
                                    sessionToken: key.sessionToken)
            store.endpoint = s3Endpoint
            store.region = region?.text ?? nonEmpty("AWS_REGION") ?? nonEmpty("AWS_DEFAULT_REGION") ?? "us-east-1"
            store.usesPathStyle = usesPathStyle
            store.allowedBuckets = s3Allowed
            store.deniedBuckets = s3Denied
            configuration.objectStores.append(store)
        }

        let gcsEnabled = try source.switchOn(options.gcs, "USE_GCS", imgproxy: ["IMGPROXY_USE_GCS"])
        let gcsEndpoint = try endpoint(options.gcsEndpoint, flag: "--gcs-endpoint", "GCS_ENDPOINT",
                                       imgproxy: "IMGPROXY_GCS_ENDPOINT")
        let gcsAllowed = source.list(options.gcsAllowedBuckets, flag: "--gcs-allowed-bucket", "GCS_ALLOWED_BUCKETS",
                                     imgproxy: ["IMGPROXY_GCS_ALLOWED_BUCKETS"])?.items ?? []
        let gcsDenied = source.list(options.gcsDeniedBuckets, flag: "--gcs-denied-bucket", "GCS_DENIED_BUCKETS",
                                    imgproxy: ["IMGPROXY_GCS_DENIED_BUCKETS"])?.items ?? []
        if gcsEnabled {
            guard let id = source.find("GCS_HMAC_KEY_ID").map(\.text), !id.isEmpty,
                  let secret = source.find("GCS_HMAC_SECRET").map(\.text), !secret.isEmpty else {
                let jsonKey = nonEmpty("IMGPROXY_GCS_KEY") != nil
                    ? " (IMGPROXY_GCS_KEY, a JSON service-account key, is not read: make an HMAC key for the account)"
                    : ""
                throw ServeError("gs:// sources need WEBIMAGE_GCS_HMAC_KEY_ID and WEBIMAGE_GCS_HMAC_SECRET\(jsonKey)")
            }
            var store = ObjectStore(provider: .googleCloudStorage, accessKeyID: id, secretAccessKey: secret)
            store.endpoint = gcsEndpoint
            store.allowedBuckets = gcsAllowed
            store.deniedBuckets = gcsDenied
            configuration.objectStores.append(store)
        }
    }

    /// An endpoint setting's URL; one written without a scheme is https, as the AWS SDK reads it.
    private func endpoint(_ given: String?, flag: String, _ ours: String, imgproxy: String) throws -> URL? {
        guard let found = source.text(given, flag: flag, ours, imgproxy: [imgproxy]), !found.text.isEmpty else {
            return nil
        }
        let text = found.text.contains("://") ? found.text : "https://" + found.text
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false, url.query == nil else {
            throw ServeError("\(found.origin) \(found.text): expected an http or https address, as http://minio:9000")
        }
        return url
    }

    /// The S3 key: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`), else the
    /// `AWS_PROFILE` profile (`default`) of the shared credentials file.
    private func awsKey() throws -> (id: String, secret: String, sessionToken: String?) {
        if let id = nonEmpty("AWS_ACCESS_KEY_ID"), let secret = nonEmpty("AWS_SECRET_ACCESS_KEY") {
            return (id, secret, nonEmpty("AWS_SESSION_TOKEN"))
        }
        let profile = nonEmpty("AWS_PROFILE") ?? "default"
        if let path = AWSSharedCredentials.path(environment: source.environment),
           let data = FileManager.default.contents(atPath: path) {
            guard let key = AWSSharedCredentials.key(profile: profile, in: String(decoding: data, as: UTF8.self)) else {
                throw ServeError("s3:// sources: \(path) has no aws_access_key_id and aws_secret_access_key "
                    + "for the profile \(profile)")
            }
            return key
        }
        throw ServeError("s3:// sources need a key: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
            + "~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE)")
    }

    /// A variable of the environment, when set to more than blanks.
    private func nonEmpty(_ name: String) -> String? {
        guard let value = source.environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            return nil
        }
        return value
    }
}
