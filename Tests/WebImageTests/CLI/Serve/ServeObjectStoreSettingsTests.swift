import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--s3` and `--gcs` and their settings, read from flags, `WEBIMAGE_*` or imgproxy's `IMGPROXY_USE_S3`,
/// `IMGPROXY_S3_*`, `IMGPROXY_USE_GCS` and `IMGPROXY_GCS_*`, with keys from AWS's variables or shared
/// credentials file, and our GCS HMAC variables.
@Suite struct ServeObjectStoreSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f", "HOME": "/nonexistent"]

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments), environment: Self.pair.merging(variables) { $1 })
    }

    func failure(_ arguments: [String] = [], _ variables: [String: String]) throws -> String {
        do {
            _ = try settings(arguments, variables).configuration()
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func imgproxysS3VariablesMakeAStoreWithoutWarnings() throws {
        let settings = try settings([], [
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://minio.internal:9000",
            "IMGPROXY_S3_REGION": "eu-west-3", "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false",
            "IMGPROXY_S3_ALLOWED_BUCKETS": "a, b", "IMGPROXY_S3_DENIED_BUCKETS": "c",
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "SECRET", "AWS_SESSION_TOKEN": "TOKEN",
        ])
        let configuration = try settings.configuration()
        let store = try #require(configuration.objectStores.first)
        #expect(configuration.objectStores.count == 1)
        #expect(store.provider == .s3 && store.scheme == "s3")
        #expect(store.endpoint?.absoluteString == "http://minio.internal:9000")
        #expect(store.region == "eu-west-3" && !store.usesPathStyle)
        #expect(store.allowedBuckets == ["a", "b"] && store.deniedBuckets == ["c"])
        #expect(store.accessKeyID == "AKID" && store.secretAccessKey == "SECRET" && store.sessionToken == "TOKEN")
        #expect(settings.warnings.isEmpty)
    }

    @Test func withoutTheSwitchThereIsNoStore() throws {
        #expect(try settings([], ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "S"]).configuration()
            .objectStores.isEmpty)
        #expect(try settings([], ["IMGPROXY_USE_S3": "false"]).configuration().objectStores.isEmpty)
    }

    @Test func flagsBeatVariablesAndTheRegionFallsBackToAWSs() throws {
        let variables = ["IMGPROXY_S3_ENDPOINT": "http://c:1", "WEBIMAGE_S3_ENDPOINT": "http://b:1",
                         "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "S", "AWS_REGION": "ap-south-1"]
        let flags = try settings(["--s3", "--s3-endpoint", "r2.example", "--s3-allowed-bucket", "x"], variables)
            .configuration().objectStores[0]
        // An endpoint without a scheme is https.
        #expect(flags.endpoint?.absoluteString == "https://r2.example" && flags.allowedBuckets == ["x"])
        #expect(flags.region == "ap-south-1" && flags.usesPathStyle)
        let ours = try settings(["--s3"], variables).configuration().objectStores[0]
        #expect(ours.endpoint?.absoluteString == "http://b:1")
        let fallback = try settings(["--s3"], ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "S"])
            .configuration().objectStores[0]
        #expect(fallback.region == "us-east-1" && fallback.endpoint == nil)
    }

    @Test func theSharedCredentialsFileGivesTheProfilesKey() throws {
        let file = TestScratch.root.appendingPathComponent("aws-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
            # comment
            [default]
            aws_access_key_id = DEFAULTID
            aws_secret_access_key = defaultsecret

            [images]
            aws_access_key_id=IMAGESID
            aws_secret_access_key = images/secret+key
            aws_session_token = tok
            """.write(to: file, atomically: true, encoding: .utf8)
        let variables = ["IMGPROXY_USE_S3": "1", "AWS_SHARED_CREDENTIALS_FILE": file.path]
        let byDefault = try settings([], variables).configuration().objectStores[0]
        #expect(byDefault.accessKeyID == "DEFAULTID" && byDefault.secretAccessKey == "defaultsecret")
        #expect(byDefault.sessionToken == nil)
        let profile = try settings([], variables.merging(["AWS_PROFILE": "images"]) { $1 }).configuration()
            .objectStores[0]
        #expect(profile.accessKeyID == "IMAGESID" && profile.secretAccessKey == "images/secret+key")
        #expect(profile.sessionToken == "tok")
        #expect(try failure([], variables.merging(["AWS_PROFILE": "nope"]) { $1 }).contains("nope"))
    }

    @Test func s3WithoutAKeyOrWithABadEndpointStops() throws {
        #expect(try failure(["--s3"], [:]).contains("AWS_ACCESS_KEY_ID"))
        let key = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "S"]
        #expect(try failure(["--s3", "--s3-endpoint", "ftp://x"], key).contains("--s3-endpoint"))
        #expect(try failure([], key.merging(["IMGPROXY_USE_S3": "maybe"]) { $1 }).contains("IMGPROXY_USE_S3"))
    }

    @Test func gcsTakesAnHMACKeyAndNamesTheJSONKeyItDoesNotRead() throws {
        let settings = try settings([], [
            "IMGPROXY_USE_GCS": "true", "IMGPROXY_GCS_ENDPOINT": "http://127.0.0.1:4443",
            "IMGPROXY_GCS_DENIED_BUCKETS": "private", "WEBIMAGE_GCS_HMAC_KEY_ID": "GOOG1ID",
            "WEBIMAGE_GCS_HMAC_SECRET": "gsecret",
        ])
        let store = try #require(try settings.configuration().objectStores.first)
        #expect(store.provider == .googleCloudStorage && store.scheme == "gs")
        #expect(store.endpoint?.absoluteString == "http://127.0.0.1:4443" && store.deniedBuckets == ["private"])
        #expect(store.accessKeyID == "GOOG1ID" && store.secretAccessKey == "gsecret")
        #expect(settings.warnings.isEmpty)
        let jsonOnly = try failure([], ["IMGPROXY_USE_GCS": "true", "IMGPROXY_GCS_KEY": "{}"])
        #expect(jsonOnly.contains("WEBIMAGE_GCS_HMAC_KEY_ID") && jsonOnly.contains("IMGPROXY_GCS_KEY"))
    }
}
