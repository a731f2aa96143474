// See server.cc: the same GCC 12 false positive inside Boost.Asio's scheduler.
#pragma GCC diagnostic ignored "-Wnull-dereference"

#include "mgmt/client.hh"

#include <array>

#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include "mgmt/reply.hh"

namespace mgmt {
namespace asio = boost::asio;
using local = asio::local::stream_protocol;

client::client(std::string path, std::chrono::milliseconds timeout)
    : _path(std::move(path)), _timeout(timeout), _sock(_io) {}

void client::fail(std::string why) {
    _error = std::move(why);
    boost::system::error_code ignored;
    _sock.close(ignored);
    _reader = frame_reader{};
}

bool client::wait(const bool& done, std::chrono::steady_clock::time_point deadline) {
    _io.restart();
    while (!done && _io.run_one_until(deadline) > 0) {
    }
    if (done)
        return true;
    // Timed out: closing cancels the operation; let its handler run before the next one.
    boost::system::error_code ignored;
    _sock.close(ignored);
    _io.restart();
    _io.run();
    return false;
}

bool client::connect() {
    _error.clear();
    _reader = frame_reader{};
    boost::system::error_code ignored, ec;
    _sock.close(ignored);
    local::endpoint ep;
    try {
        ep = local::endpoint(_path);
    } catch (const boost::system::system_error& e) {
        _error = fmt::format("cannot connect to srv6d at {}: {}", _path, e.code().message());
        return false;
    }
    bool done = false;
    _sock.async_connect(ep, [&](const boost::system::error_code& e) {
        ec = e;
        done = true;
    });
    if (!wait(done, std::chrono::steady_clock::now() + _timeout)) {
        fail(fmt::format("cannot connect to srv6d at {}: timed out", _path));
        return false;
    }
    if (ec) {
        fail(fmt::format("cannot connect to srv6d at {}: {}", _path, ec.message()));
        return false;
    }
    return true;
}

std::optional<pb::Response> client::call(const pb::Request& req) {
    _error.clear();
    if (!_sock.is_open()) {
        _error = fmt::format("not connected to srv6d at {}", _path);
        return std::nullopt;
    }
    const auto deadline = std::chrono::steady_clock::now() + _timeout;
    std::string out;
    if (!encode_frame(req, out)) {
        _error = "request too large";
        return std::nullopt;
    }
    bool done = false;
    boost::system::error_code ec;
    asio::async_write(_sock, asio::buffer(out), [&](const boost::system::error_code& e, size_t) {
        ec = e;
        done = true;
    });
    if (!wait(done, deadline) || ec) {
        fail(ec ? fmt::format("cannot send to srv6d at {}: {}", _path, ec.message())
                : fmt::format("srv6d at {} did not take the request in time", _path));
        return std::nullopt;
    }
    std::array<char, 64 * 1024> buf{};
    std::optional<pb::Response> answer;
    auto part_deadline = deadline;
    for (;;) {
        if (auto body = _reader.next()) {
            pb::Response part;
            if (!part.ParseFromArray(body->data(), static_cast<int>(body->size()))) {
                fail(fmt::format("malformed response from srv6d at {}", _path));
                return std::nullopt;
            }
            const bool more = part.more();
            if (!answer) {
                part.clear_more();
                answer = std::move(part);
            } else {
                join_part(*answer, std::move(part));
            }
            if (!more)
                return answer;
            // A streamed answer: the timeout bounds each part, not the whole table.
            part_deadline = std::chrono::steady_clock::now() + _timeout;
            continue;
        }
        if (const auto len = _reader.oversize()) {
            fail(fmt::format("response from srv6d at {} announces {} bytes, more than the {}-byte limit", _path,
                             *len, max_message_size));
            return std::nullopt;
        }
        done = false;
        size_t n = 0;
        _sock.async_read_some(asio::buffer(buf), [&](const boost::system::error_code& e, size_t got) {
            ec = e;
            n = got;
            done = true;
        });
        if (!wait(done, part_deadline)) {
            fail(fmt::format("no answer from srv6d at {} within {} ms", _path, _timeout.count()));
            return std::nullopt;
        }
        if (ec == asio::error::eof) {
            fail(fmt::format("srv6d at {} closed the connection without answering", _path));
            return std::nullopt;
        }
        if (ec) {
            fail(fmt::format("cannot read from srv6d at {}: {}", _path, ec.message()));
            return std::nullopt;
        }
        _reader.feed(std::string_view(buf.data(), n));
    }
}

}  // namespace mgmt
