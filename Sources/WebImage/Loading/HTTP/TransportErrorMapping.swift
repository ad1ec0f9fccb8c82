import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

extension ImageError {
    /// Maps whatever a transport threw to the library's codes: cancellation to `cancelled`, every kind of timeout
    /// to `timedOut`, a decompression bomb or headers over the HTTP/1 parser's limit (80 KB) to `responseTooLarge`
    /// (neither is retried), a connection every address refused to `connectionRefused`, and other connection, TLS
    /// and protocol failures to `connectionFailed`. An `ImageError`
    /// passes through unchanged.
    static func fromTransport(_ error: any Error) -> ImageError {
        if let error = error as? ImageError { return error }
        return mapped(error).causedBy(error)
    }

    private static func mapped(_ error: any Error) -> ImageError {
        if refusesConnection(error) {
            return ImageError(.connectionRefused, "the server refused the connection")
        }
        switch error {
        case is CancellationError:
            return ImageError(.cancelled, "the download was cancelled")
        case let error as HTTPClientError:
            return fromHTTPClient(error)
        case let error as NIOHTTPDecompression.DecompressionError where error == .limit:
            return ImageError(.responseTooLarge, "the decompressed body exceeds the decompression limit")
        case let error as IOError:
            return ImageError(.connectionFailed, "connection error: \(error.description)")
        case let error as NIOSSLError:
            return ImageError(.connectionFailed, "TLS failed: \(error)")
        case let error as BoringSSLError:
            return ImageError(.connectionFailed, "TLS failed: \(error)")
        case let error as HTTPParserError where error == .headerOverflow:
            return ImageError(.responseTooLarge, "the response headers exceed the HTTP parser's limit (80 KB)")
        case let error as HTTPParserError:
            return ImageError(.connectionFailed, "the response broke off or is not valid HTTP: \(error)")
        default:
            return ImageError(.connectionFailed, "transfer failed: \(error)")
        }
    }

    /// Whether `error` says that every address tried refused the connection (`ECONNREFUSED`).
    private static func refusesConnection(_ error: any Error) -> Bool {
        switch error {
        case let error as IOError: error.errnoCode == ECONNREFUSED
        case let error as NIOConnectionError:
            !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { refusesConnection($0.error) }
        default: false
        }
    }

    private static func fromHTTPClient(_ error: HTTPClientError) -> ImageError {
        switch error {
        case .cancelled:
            return ImageError(.cancelled, "the download was cancelled")
        case .readTimeout:
            return ImageError(.timedOut, "no bytes arrived within the read timeout")
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout, .socksHandshakeTimeout,
             .httpProxyHandshakeTimeout:
            return ImageError(.timedOut, "the connection could not be made in time (\(error.shortDescription))")
        case .deadlineExceeded:
            // The load's total timeout: every hop runs under one deadline.
            return ImageError(.timedOut, "the download took longer than its total timeout")
        case .invalidURL, .emptyHost, .emptyScheme:
            return ImageError(.invalidURL, "the URL cannot be requested (\(error.shortDescription))")
        case .remoteConnectionClosed:
            return ImageError(.connectionFailed, "the server closed the connection before the response ended")
        case .bodyLengthMismatch:
            return ImageError(.connectionFailed, "the body is shorter or longer than its Content-Length")
        default:
            return ImageError(.connectionFailed, "transfer failed: \(error.shortDescription)")
        }
    }
}
