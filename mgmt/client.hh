// Blocking client of the management socket (srv6ctl, tests): connect, then call() any number
// of times. Every operation is bounded by the timeout, so a stuck daemon cannot hang srv6ctl.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include "mgmt/framing.hh"
#include "mgmt/proto.hh"

namespace mgmt {

class client {
public:
    explicit client(std::string path, std::chrono::milliseconds timeout = std::chrono::seconds(10));

    // False with error() = "cannot connect to srv6d at PATH: No such file or directory" etc.
    bool connect();
    // The response to `req`; nullopt with error() set when the exchange failed (the connection
    // is then closed: connect() again to retry). A response carrying an error is still a response.
    // An answer srv6d streams in parts comes back joined (mgmt/reply.hh); the timeout then
    // bounds the wait for each part.
    std::optional<pb::Response> call(const pb::Request& req);

    const std::string& error() const { return _error; }
    const std::string& path() const { return _path; }

private:
    // Runs the io_context until `done` or the deadline; on timeout closes the socket.
    bool wait(const bool& done, std::chrono::steady_clock::time_point deadline);
    void fail(std::string why);

    std::string _path;
    std::chrono::milliseconds _timeout;
    boost::asio::io_context _io;
    boost::asio::local::stream_protocol::socket _sock;
    frame_reader _reader;
    std::string _error;
};

}  // namespace mgmt
