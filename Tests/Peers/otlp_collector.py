"""An OTLP/HTTP traces receiver for the proxy's tracing tests: decodes each export with opentelemetry-proto's
own generated classes (an implementation independent of the proxy's encoder) and appends one JSON object per
export to OUT before answering, so that once the exporter has been answered the file holds everything it sent.

usage: otlp_collector.py OUT [STATUS]    prints the port it listens on (127.0.0.1), then serves until killed;
STATUS (default 200) is the status every export is answered with.
"""
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest, ExportTraceServiceResponse)

OUT = sys.argv[1]
STATUS = int(sys.argv[2]) if len(sys.argv) > 2 else 200


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        spans = []
        for resource_spans in request.resource_spans:
            resource = {kv.key: value(kv.value) for kv in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans.append({
                        "resource": resource, "scope": scope_spans.scope.name,
                        "traceId": span.trace_id.hex(), "spanId": span.span_id.hex(),
                        "parentSpanId": span.parent_span_id.hex(), "name": span.name, "kind": span.kind,
                        "start": str(span.start_time_unix_nano), "end": str(span.end_time_unix_nano),
                        "attributes": {kv.key: value(kv.value) for kv in span.attributes},
                        "statusCode": span.status.code, "statusMessage": span.status.message,
                    })
        export = {"path": self.path, "contentType": self.headers.get("Content-Type"),
                  "contentEncoding": self.headers.get("Content-Encoding"),
                  "apiKey": self.headers.get("X-Api-Key"), "spans": spans}
        with open(OUT, "a") as out:
            out.write(json.dumps(export) + "\n")
        answer = ExportTraceServiceResponse().SerializeToString() if STATUS == 200 else b"refused"
        self.send_response(STATUS)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
