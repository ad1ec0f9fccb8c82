import Foundation
import TestImageServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real S3 API on a loopback port: moto's server (`scripts/install-deps` installs it), with IAM authentication
/// on, so it refuses a request whose signature it cannot recompute with a key it issued. Its first three actions
/// pass unauthenticated, which is how the set-up (boto3, moto's own client) creates a user allowed to use S3 and
/// its access key; the bucket and the object are then created with that key.
public struct MotoS3 {
    public let endpoint: URL
    public let accessKeyID: String
    public let secretAccessKey: String
    private let process: SpawnedProcess

    /// Runs `body` with a fresh moto holding `objects` (key → bytes) in `bucket`, and stops moto (by its process)
    /// afterwards, whatever `body` does.
    public static func with(bucket: String, objects: [String: Data], _ body: (MotoS3) async throws -> Void)
        async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
        let process = try SpawnedProcess(try executable(), ["-H", "127.0.0.1", "-p", "0"], environment: environment,
                                         output: .pipe, errors: .standardOutput)
        do {
            guard let output = process.outputPipe else { throw MotoError("no output pipe") }
            let endpoint = try await listeningEndpoint(output)
            let keys = try await createUserBucketAndObjects(endpoint: endpoint, bucket: bucket, objects: objects)
            try await body(MotoS3(endpoint: endpoint, accessKeyID: keys.id, secretAccessKey: keys.secret,
                                  process: process))
        } catch {
            stop(process)
            throw error
        }
        stop(process)
    }

    /// Stops moto now (a test that checks what is served without the store); stopping twice is harmless.
    public func stop() {
        Self.stop(process)
    }

    /// SIGKILL: moto has nothing to keep.
    private static func stop(_ process: SpawnedProcess) {
        process.killAndWait()
    }

    private static func executable() throws -> String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/root/.pyenv/shims", "/usr/local/bin", "/opt/homebrew/bin"]
        guard let found = folders.map({ $0 + "/moto_server" }).first(where: FileManager.default.isExecutableFile)
        else { throw MotoError("moto_server is not installed (scripts/install-deps installs it)") }
        return found
    }

    /// Reads moto's output until it says where it listens (it binds port 0, so the kernel picks a free one), then
    /// keeps reading it in the background so that its request log never fills the pipe.
    private static func listeningEndpoint(_ output: FileHandle) async throws -> URL {
        let port: Int? = await withCheckedContinuation { continuation in
            Thread {
                var text = ""
                var port: Int?
                while port == nil {
                    let chunk = output.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                    if let range = text.range(of: #"Running on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                        port = Int(text[range].split(separator: ":").last ?? "")
                    }
                }
                continuation.resume(returning: port)
                while !output.availableData.isEmpty {}
            }.start()
        }
        guard let port else { throw MotoError("moto_server exited before it listened") }
        return URL(string: "http://127.0.0.1:\(port)")!
    }

    /// The set-up, in moto's own client: a user allowed every S3 action, its access key, the bucket, the objects.
    private static func createUserBucketAndObjects(endpoint: URL, bucket: String, objects: [String: Data])
        async throws -> (id: String, secret: String)
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = [folder.appendingPathComponent("setup.py").path, endpoint.absoluteString, bucket]
        for (index, (key, data)) in objects.sorted(by: { $0.key < $1.key }).enumerated() {
            let file = folder.appendingPathComponent("object-\(index)")
            try data.write(to: file)
            arguments += [key, file.path]
        }
        try setupScript.write(to: folder.appendingPathComponent("setup.py"), atomically: true, encoding: .utf8)
        // The Python moto runs on, which has boto3 (moto needs it): the one beside moto_server (in its venv, or
        // pyenv's shims), else the first on the PATH.
        let beside = URL(fileURLWithPath: try executable()).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("python3").path
        let result = FileManager.default.isExecutableFile(atPath: beside)
            ? try await ChildProcess.run(beside, arguments)
            : try await ChildProcess.run("/usr/bin/env", ["python3"] + arguments)
        guard result.status == 0,
              let line = result.output.split(separator: "\n").first(where: { $0.hasPrefix("KEYS ") }) else {
            throw MotoError("moto set-up failed: \(result.output.suffix(2000))")
        }
        let fields = line.split(separator: " ")
        return (String(fields[1]), String(fields[2]))
    }

    private static let setupScript = """
        import json, sys, boto3
        endpoint, bucket, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
        iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bootstrap",
                           aws_secret_access_key="bootstrap")
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="all-s3", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
        s3.create_bucket(Bucket=bucket)
        for name, path in zip(rest[0::2], rest[1::2]):
            with open(path, "rb") as body:
                s3.put_object(Bucket=bucket, Key=name, Body=body.read(), ContentType="image/jpeg")
        print("KEYS", key["AccessKeyId"], key["SecretAccessKey"])
        """
}

public struct MotoError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
