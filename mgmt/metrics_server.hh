// The metrics endpoint: a minimal HTTP/1.1 server on the control thread's io_context answering
// `GET /metrics` with the text exposition format (0.0.4, or OpenMetrics 1.0 when the request's
// Accept header asks for it, as Prometheus's does), one request per connection (scrapers open
// one per scrape). Off unless `metrics.listen` is set. Boost.Asio (already srv6d's io) rather
// than a library: Debian 12 packages no prometheus-cpp, and the endpoint is a dozen lines of
// HTTP. docs/observability.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>

#include "mgmt/listen_addr.hh"
#include "mgmt/metrics.hh"

namespace mgmt {

namespace detail {
struct metrics_state;
}  // namespace detail

class metrics_server {
public:
    // Binds and listens (throws std::system_error naming the address when it cannot);
    // `body` is called on the io_context's thread for every scrape, in the format negotiated.
    metrics_server(boost::asio::io_context& io, const listen_addr& at, std::function<std::string(exposition_format)> body);
    ~metrics_server();
    metrics_server(const metrics_server&) = delete;
    metrics_server& operator=(const metrics_server&) = delete;

    void close();
    uint16_t port() const;  // the bound port (port 0 asks the kernel for one)

private:
    std::shared_ptr<detail::metrics_state> _state;
};

}  // namespace mgmt
