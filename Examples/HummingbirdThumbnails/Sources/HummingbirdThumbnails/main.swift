import Foundation
import Hummingbird

// `PORT=8080 swift run --package-path Examples/HummingbirdThumbnails`; listens on 127.0.0.1 unless `HOST` says.
let environment = ProcessInfo.processInfo.environment
let app = Application(
    router: routes(),
    configuration: .init(address: .hostname(environment["HOST"] ?? "127.0.0.1",
                                            port: environment["PORT"].flatMap(Int.init) ?? 8080),
                         serverName: "HummingbirdThumbnails")
)
try await app.runService()
