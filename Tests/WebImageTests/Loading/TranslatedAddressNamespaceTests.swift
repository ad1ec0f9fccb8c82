import Foundation
import TestImageServer
import Testing
@testable import WebImage

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4-translated loopback address (`::ffff:0:7f00:1`) under ``AddressPolicy/publicOnly``, checked where it
/// can be told apart from a refusal by accident: in a network namespace of its own, with no route out and that
/// address put on its loopback interface, a server listens on it. There the address answers (a download without
/// a policy gets the file), so a policy that let it through would show up as a connection the server counts.
/// On the machine's own network the same mistake only sends packets to the default route, which no test sees.
///
/// The outer test starts this test binary again in the namespace (`unshare --net`, as root) and runs the inner
/// one there; the inner one runs nowhere else.
@Suite("Translated addresses in a network namespace", .timeLimit(.minutes(2)))
struct TranslatedAddressNamespaceTests {
    static let address = "::ffff:0:7f00:1"
    static let insideVariable = "WEBIMAGE_TEST_INSIDE_NETWORK_NAMESPACE"

    /// Root, `unshare` and `ip`: what making the namespace needs (Linux only).
    static let namespacesAvailable: Bool = {
        #if os(Linux)
        return getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        #else
        return false
        #endif
    }()

    static var isInsideNamespace: Bool { ProcessInfo.processInfo.environment[insideVariable] == "1" }

    @Test(.enabled(if: namespacesAvailable && !isInsideNamespace, "needs root, unshare and ip (Linux)"))
    func publicOnlyRefusesTheTranslatedLoopbackWithoutConnecting() async throws {
        let inner = "TranslatedAddressNamespaceTests/theTranslatedLoopbackIsRefusedInsideTheNamespace"
        let output = try await Self.runInNamespace(
            script: "ip link set lo up && ip -6 addr add \(Self.address)/128 dev lo && "
                + "exec \"$0\" --testing-library swift-testing --filter \"$1\"",
            arguments: [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, inner])
        #expect(output.status == 0, "\(output.text)")
        // It ran and passed rather than being filtered out or skipped.
        #expect(output.text.contains("theTranslatedLoopbackIsRefusedInsideTheNamespace() passed"), "\(output.text)")
    }

    @Test(.enabled(if: isInsideNamespace, "runs only in the namespace the test above makes"))
    func theTranslatedLoopbackIsRefusedInsideTheNamespace() async throws {
        let image = LoadingTest.bytes(2_000, seed: 4)
        let server = try await TestImageServer.start(host: Self.address)
        server.serve("a.png", data: image, contentType: "image/png")
        let url = server.url("/files/a.png", host: "[\(Self.address)]")
        // The address answers here: with no policy the file comes back, over one connection.
        let fetched = try await LoadingTest.withDownloader { try await $0.download(url) }
        #expect(fetched.data == image)
        #expect(server.log.connectionCount == 1)

        let publicOnly = LoadingTest.configuration { $0.addressPolicy = .publicOnly }
        let error = try await LoadingTest.withDownloader(publicOnly) { downloader in
            await LoadingTest.failure { try await downloader.download(url) }
        }
        #expect(error?.code == .destinationRefused, "\(String(describing: error))")
        #expect(error?.message.contains("loopback") == true, "\(String(describing: error))")
        // Refused before connecting: the server saw no second connection.
        #expect(server.log.connectionCount == 1)
        #expect(server.log.requests.count == 1)
        await server.shutdown()
    }

    /// Runs `sh -c SCRIPT ARGUMENTS…` in a new network namespace, with this test's environment plus the marker
    /// the inner test looks for.
    private static func runInNamespace(script: String, arguments: [String]) async throws
        -> (status: Int32, text: String)
    {
        var environment = ProcessInfo.processInfo.environment
        environment[insideVariable] = "1"
        let result = try await ChildProcess.run("/usr/bin/unshare", ["--net", "--", "/bin/sh", "-c", script] + arguments,
                                                environment: environment)
        return (result.status, result.output)
    }
}
