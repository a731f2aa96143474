// GCC 12 at -O2: Boost.Asio's scheduler false positive (see mgmt/server.cc).
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include "mgmt/metrics_server.hh"

#include <cctype>
#include <charconv>
#include <system_error>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include "util/log.hh"

namespace mgmt {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace detail {
struct metrics_state : std::enable_shared_from_this<metrics_state> {
    metrics_state(asio::io_context& io_, std::function<std::string(exposition_format)> b) : io(io_), body(std::move(b)), acceptor(io_) {}
    asio::io_context& io;
    std::function<std::string(exposition_format)> body;
    tcp::acceptor acceptor;
    bool closed = false;
    void accept();
};
}  // namespace detail

namespace {

constexpr size_t max_request = 8192;  // a scraper's GET is a few hundred bytes

// The value of header `name` (lower case) in a request head, or "".
std::string header(const std::string& head, std::string_view name) {
    size_t pos = head.find("\r\n");
    while (pos != std::string::npos && pos + 2 < head.size()) {
        const size_t start = pos + 2, end = head.find("\r\n", start);
        const std::string line = head.substr(start, end == std::string::npos ? std::string::npos : end - start);
        const auto colon = line.find(':');
        if (colon == name.size()) {
            bool same = true;
            for (size_t i = 0; i < colon && same; ++i)
                same = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
            if (same)
                return line.substr(colon + 1);
        }
        pos = end;
    }
    return {};
}

// One request, one answer, then the connection closes (HTTP/1.1 `Connection: close`).
class http_conn : public std::enable_shared_from_this<http_conn> {
public:
    http_conn(std::shared_ptr<detail::metrics_state> st, tcp::socket s)
        : _st(std::move(st)), _sock(std::move(s)), _timer(_st->io), _in(max_request) {}

    void start() {
        _timer.expires_after(std::chrono::seconds(5));
        _timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
            if (!ec) {
                boost::system::error_code ignored;
                self->_sock.close(ignored);
            }
        });
        asio::async_read_until(_sock, _in, "\r\n\r\n",
                               [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                                   self->on_request(ec);
                               });
    }

private:
    void on_request(const boost::system::error_code& ec) {
        if (ec) {
            if (ec == asio::error::not_found)  // no header end within max_request bytes
                reply("431 Request Header Fields Too Large", "text/plain", "request too large\n");
            else
                _timer.cancel();
            return;
        }
        const std::string head(asio::buffers_begin(_in.data()), asio::buffers_end(_in.data()));
        const std::string line = head.substr(0, head.find("\r\n"));
        // "GET /metrics HTTP/1.1": the method, the path (a query string is ignored), the version.
        const auto sp1 = line.find(' '), sp2 = line.rfind(' ');
        const std::string method = line.substr(0, sp1);
        std::string path = sp1 != std::string::npos && sp2 > sp1 ? line.substr(sp1 + 1, sp2 - sp1 - 1) : "";
        path = path.substr(0, path.find('?'));
        if (method != "GET" && method != "HEAD")
            reply("405 Method Not Allowed", "text/plain", "only GET\n");
        else if (path != "/metrics")
            reply("404 Not Found", "text/plain", "metrics are at /metrics\n");
        else {
            const auto f = negotiate(header(head, "accept"));
            reply("200 OK", content_type(f), _st->body(f), method == "HEAD");
        }
    }

    void reply(std::string_view status, std::string_view type, const std::string& body, bool head = false) {
        _out = fmt::format("HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", status,
                           type, body.size());
        if (!head)
            _out += body;
        asio::async_write(_sock, asio::buffer(_out), [self = shared_from_this()](const boost::system::error_code&, size_t) {
            boost::system::error_code ignored;
            self->_sock.shutdown(tcp::socket::shutdown_both, ignored);
            self->_sock.close(ignored);
            self->_timer.cancel();
        });
    }

    std::shared_ptr<detail::metrics_state> _st;
    tcp::socket _sock;
    asio::steady_timer _timer;
    asio::streambuf _in;
    std::string _out;
};

}  // namespace

void detail::metrics_state::accept() {
    acceptor.async_accept([self = shared_from_this()](const boost::system::error_code& ec, tcp::socket s) {
        if (self->closed || ec == asio::error::operation_aborted)
            return;
        if (!ec)
            std::make_shared<http_conn>(self, std::move(s))->start();
        self->accept();
    });
}

std::optional<listen_addr> parse_listen(const std::string& s) {
    const auto colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return std::nullopt;
    listen_addr a;
    a.host = s.substr(0, colon);
    if (a.host.front() == '[') {
        if (a.host.size() < 3 || a.host.back() != ']')
            return std::nullopt;
        a.host = a.host.substr(1, a.host.size() - 2);
    } else if (a.host.find(':') != std::string::npos) {
        return std::nullopt;  // an IPv6 address needs its brackets
    }
    const std::string port = s.substr(colon + 1);
    const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
    if (port.empty() || ec != std::errc{} || p != port.data() + port.size())
        return std::nullopt;
    boost::system::error_code bad;
    (void)asio::ip::make_address(a.host, bad);
    if (bad)
        return std::nullopt;
    return a;
}

metrics_server::metrics_server(asio::io_context& io, const listen_addr& at, std::function<std::string(exposition_format)> body)
    : _state(std::make_shared<detail::metrics_state>(io, std::move(body))) {
    auto& st = *_state;
    const tcp::endpoint ep(asio::ip::make_address(at.host), at.port);
    const std::string where = fmt::format("metrics {}:{}", at.host, at.port);
    boost::system::error_code ec;
    auto fail = [&](const char* what) {
        throw std::system_error(std::error_code(ec.value(), std::system_category()), fmt::format("{}: {}", where, what));
    };
    if (st.acceptor.open(ep.protocol(), ec); ec)
        fail("cannot create socket");
    st.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (st.acceptor.bind(ep, ec); ec)
        fail("cannot bind");
    if (st.acceptor.listen(asio::socket_base::max_listen_connections, ec); ec)
        fail("cannot listen");
    util::log(util::level::info, "metrics: serving http://{}:{}/metrics", at.host, port());
    st.accept();
}

metrics_server::~metrics_server() { close(); }

void metrics_server::close() {
    if (_state->closed)
        return;
    _state->closed = true;
    boost::system::error_code ignored;
    _state->acceptor.close(ignored);
}

uint16_t metrics_server::port() const {
    boost::system::error_code ec;
    return _state->acceptor.local_endpoint(ec).port();
}

}  // namespace mgmt
