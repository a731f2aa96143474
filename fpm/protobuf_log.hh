// libprotobuf's own diagnostics through srv6d's log. Left alone, the library writes a line to
// stderr for every message a peer sends with, e.g., invalid UTF-8 in a string field (proto2
// parses it and only complains): a flood that bypasses srv6d's log target and repeat filter.
#pragma once

namespace fpm {

// Installs the handler (process-wide, idempotent): protobuf's INFO lines become debug lines,
// WARNING and ERROR warnings ("protobuf: ...", at most one per 10 s: a peer's
// bytes trigger them), FATAL an error (the library aborts after it).
void route_protobuf_log();

}  // namespace fpm
