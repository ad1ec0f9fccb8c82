import Foundation
import Testing
import WebImageServer

@testable import WebImageCLI

/// `--local-root`, `--base-url` and `--url-replacement`, read from their flags, `WEBIMAGE_*` or imgproxy's
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`, `IMGPROXY_BASE_URL` and `IMGPROXY_URL_REPLACEMENTS`, in that order.
@Suite struct ServeSourceURLSettingsTests {
    static let pair = ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f"]

    func settings(_ arguments: [String] = [], _ variables: [String: String]) throws -> ServeSettings {
        ServeSettings(command: try ServeCommand.parse(arguments),
                      environment: Self.pair.merging(variables) { $1 })
    }

    func configuration(_ arguments: [String] = [], _ variables: [String: String]) throws -> ProxyConfiguration {
        try settings(arguments, variables).configuration()
    }

    /// A fresh folder, removed after `body`.
    func withFolder(_ body: (String) throws -> Void) throws {
        let folder = TestScratch.root.appendingPathComponent("webimage-root-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder.path)
    }

    @Test func imgproxysVariablesSetTheRootTheBaseAndTheReplacementsWithoutWarnings() throws {
        try withFolder { folder in
            let settings = try settings([], [
                "IMGPROXY_LOCAL_FILESYSTEM_ROOT": folder, "IMGPROXY_BASE_URL": "https://images.example/",
                "IMGPROXY_URL_REPLACEMENTS": "mys3://*/=s3://bucket/${1}/;cdn:=https://cdn.example/",
            ])
            let configuration = try settings.configuration()
            #expect(configuration.localFilesystemRoot == folder)
            #expect(configuration.sourceURLRewriting == SourceURLRewriting(baseURL: "https://images.example/",
                replacements: [SourceURLReplacement(pattern: "mys3://*/", replacement: "s3://bucket/${1}/"),
                               SourceURLReplacement(pattern: "cdn:", replacement: "https://cdn.example/")]))
            #expect(settings.warnings.isEmpty, "\(settings.warnings)")
        }
    }

    @Test func aFlagBeatsOurVariableWhichBeatsImgproxys() throws {
        try withFolder { a in
            try withFolder { b in
                try withFolder { c in
                    let all = ["IMGPROXY_LOCAL_FILESYSTEM_ROOT": c, "WEBIMAGE_LOCAL_ROOT": b,
                               "IMGPROXY_BASE_URL": "c/", "WEBIMAGE_BASE_URL": "b/",
                               "IMGPROXY_URL_REPLACEMENTS": "c=3", "WEBIMAGE_URL_REPLACEMENT": "b=2;bb=22"]
                    let flags = try configuration(["--local-root", a, "--base-url", "a/",
                                                   "--url-replacement", "a=1", "--url-replacement", "x=y;z"], all)
                    #expect(flags.localFilesystemRoot == a && flags.sourceURLRewriting.baseURL == "a/")
                    // A flag is one pair: a `;` in it is the replacement's own.
                    #expect(flags.sourceURLRewriting.replacements == [
                        SourceURLReplacement(pattern: "a", replacement: "1"),
                        SourceURLReplacement(pattern: "x", replacement: "y;z")])
                    let ours = try configuration([], all)
                    #expect(ours.localFilesystemRoot == b && ours.sourceURLRewriting.baseURL == "b/")
                    #expect(ours.sourceURLRewriting.replacements.map(\.pattern) == ["b", "bb"])
                    let theirs = try configuration([], all.filter { $0.key.hasPrefix("IMGPROXY_") })
                    #expect(theirs.localFilesystemRoot == c && theirs.sourceURLRewriting.baseURL == "c/")
                    #expect(theirs.sourceURLRewriting.replacements.map(\.pattern) == ["c"])
                }
            }
        }
    }

    @Test func emptyValuesAreNoneAsInImgproxy() throws {
        let configuration = try configuration([], [
            "IMGPROXY_LOCAL_FILESYSTEM_ROOT": "", "IMGPROXY_BASE_URL": "", "IMGPROXY_URL_REPLACEMENTS": " ",
        ])
        #expect(configuration.localFilesystemRoot == nil && configuration.sourceURLRewriting.isEmpty)
    }

    @Test func aRootThatIsNoFolderOrAReplacementWithoutEqualsStopsTheStart() throws {
        let file = TestScratch.root.appendingPathComponent("webimage-file-\(UUID())")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let refused: [([String], [String: String], String)] = [
            ([], ["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/nonexistent/webimage-root"], "IMGPROXY_LOCAL_FILESYSTEM_ROOT"),
            ([], ["IMGPROXY_LOCAL_FILESYSTEM_ROOT": file.path], "IMGPROXY_LOCAL_FILESYSTEM_ROOT"),
            (["--local-root", file.path], [:], "--local-root"),
            ([], ["IMGPROXY_URL_REPLACEMENTS": "a=b;no-equals"], "IMGPROXY_URL_REPLACEMENTS"),
            ([], ["IMGPROXY_URL_REPLACEMENTS": "a=b;"], "IMGPROXY_URL_REPLACEMENTS"),
            (["--url-replacement", "no-equals"], [:], "--url-replacement"),
        ]
        for (arguments, variables, name) in refused {
            do {
                _ = try configuration(arguments, variables)
                Issue.record("\(arguments) \(variables) started")
            } catch {
                #expect(error is ServeError && "\(error)".contains(name), "\(error)")
            }
        }
    }

    @Test func theRootAsSlashStartsWithAWarning() throws {
        let settings = try settings([], ["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/"])
        #expect(try settings.configuration().localFilesystemRoot == "/")
        #expect(settings.warnings.contains { $0.contains("IMGPROXY_LOCAL_FILESYSTEM_ROOT") && $0.contains("/") })
    }
}
