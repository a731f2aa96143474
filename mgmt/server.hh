// The management socket: a unix stream socket on which srv6ctl sends framed Requests and reads
// framed Responses (mgmt/framing.hh). Several requests may follow each other on one connection;
// each is answered in order, one per turn of the io_context (its answer written before the next
// is read), so that no client holds the control thread for more than one request at a time and
// its queue stays in its own socket buffer. Runs on the caller's io_context; the handler is called on that
// io_context's thread, so it may read state owned by that thread (the RIB) without locks.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>

#include "mgmt/framing.hh"
#include "mgmt/proto.hh"
#include "mgmt/reply.hh"

namespace mgmt {

namespace detail {
struct server_state;  // shared with the connections, which may outlive close() by one handler
}  // namespace detail

// A Response, or the first part of one and how to make the rest (mgmt/reply.hh).
using handler = std::function<reply(const pb::Request&)>;

struct server_options {
    // A connection that completes no request for this long is closed: srv6ctl sends its
    // request right after connecting, so an idle connection is a stuck or stray client.
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(30)};
    // At most this many connections: for one more, the connection idle the longest is closed
    // (one with a request in progress only if every one has), so that neither a runaway client
    // can exhaust the daemon's file descriptors nor idle ones can keep a new srv6ctl out.
    size_t max_connections = 32;
    size_t max_message = max_message_size;  // a response, or one part of one
    // A request: srv6ctl's are a few dozen bytes; the length is checked before the body is read.
    size_t max_request = max_request_size;
    // Group of the socket file (a name or a gid; "": the daemon's own): its members may use
    // srv6ctl. A group this host does not have is logged and the daemon's own kept.
    std::string group;
};

class server {
public:
    // Creates the parent directory of `path` if needed (mode 0750, the socket's group: its
    // members may reach the socket, others may not look in), replaces a stale socket file (one
    // no process accepts on), binds with mode 0660 and the group, and listens. Throws
    // std::system_error naming the path if any step fails, or if another process is serving `path`.
    server(boost::asio::io_context& io, std::string path, handler h, server_options opt = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    // Stops accepting, closes open connections and removes the socket file (if it is still
    // ours). Idempotent. Call it on the io_context's thread, or once that thread has stopped.
    void close();

    // A reload (same thread rule as close()). Fewer connections than are open: the extra ones
    // go as a newcomer would make room. A group this host lacks is logged; the old one stays.
    void set_max_connections(size_t n);
    void set_group(const std::string& group);

    const std::string& path() const;
    size_t connections() const;  // open client connections (same thread rule as close())
    size_t evicted() const;      // connections closed to make room for a new one

private:
    std::shared_ptr<detail::server_state> _state;
};

}  // namespace mgmt
