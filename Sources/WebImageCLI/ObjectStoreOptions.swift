import ArgumentParser

/// `webimage serve`'s flags for `s3://` and `gs://` sources (read by ``ServeSettings/objectStores(_:)``). Keys are
/// read from the environment only, never from flags, which other users of the machine can see.
struct ObjectStoreOptions: ParsableArguments {
    @Flag(name: .customLong("s3"), help: ArgumentHelp(
        "Fetch s3://bucket/key[?version] sources from S3 or a store with its API (IMGPROXY_USE_S3), with the key in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) or the shared credentials file (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE)."))
    var s3 = false
    @Option(name: .customLong("s3-endpoint"), help: ArgumentHelp(
        "The S3 API's address, as http://minio.internal:9000 (default AWS's for the region).", valueName: "URL"))
    var s3Endpoint: String?
    @Option(name: .customLong("s3-region"), help: ArgumentHelp(
        "The region S3 requests are signed for (default AWS_REGION, else us-east-1).", valueName: "REGION"))
    var s3Region: String?
    @Flag(name: .customLong("s3-virtual-host-style"), help: ArgumentHelp(
        "Ask --s3-endpoint for bucket.host/key rather than host/bucket/key (IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE=false)."))
    var s3VirtualHostStyle = false
    @Option(name: .customLong("s3-allowed-bucket"), help: ArgumentHelp(
        "Only these S3 buckets are read (repeatable, or comma-separated).", valueName: "BUCKET"))
    var s3AllowedBuckets: [String] = []
    @Option(name: .customLong("s3-denied-bucket"), help: ArgumentHelp(
        "These S3 buckets are never read, unless also allowed (repeatable, or comma-separated).", valueName: "BUCKET"))
    var s3DeniedBuckets: [String] = []

    @Flag(name: .customLong("gcs"), help: ArgumentHelp(
        "Fetch gs://bucket/key[?generation] sources from Google Cloud Storage's XML API (IMGPROXY_USE_GCS), with an HMAC key in WEBIMAGE_GCS_HMAC_KEY_ID and WEBIMAGE_GCS_HMAC_SECRET."))
    var gcs = false
    @Option(name: .customLong("gcs-endpoint"), help: ArgumentHelp(
        "Google Cloud Storage's address (default https://storage.googleapis.com).", valueName: "URL"))
    var gcsEndpoint: String?
    @Option(name: .customLong("gcs-allowed-bucket"), help: ArgumentHelp(
        "Only these GCS buckets are read (repeatable, or comma-separated).", valueName: "BUCKET"))
    var gcsAllowedBuckets: [String] = []
    @Option(name: .customLong("gcs-denied-bucket"), help: ArgumentHelp(
        "These GCS buckets are never read, unless also allowed (repeatable, or comma-separated).", valueName: "BUCKET"))
    var gcsDeniedBuckets: [String] = []
}
