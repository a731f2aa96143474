// What a process writes to fd 2, captured for a test: log lines, libraries' own diagnostics.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <string>

namespace test_support {

// Sends fd 2 to a temporary file for the lifetime of the object; text() reads what was written.
class capture_stderr {
public:
    capture_stderr() {
        std::fflush(stderr);
        _file = std::tmpfile();
        _saved = dup(2);
        dup2(fileno(_file), 2);
    }
    ~capture_stderr() {
        std::fflush(stderr);
        dup2(_saved, 2);
        close(_saved);
        std::fclose(_file);
    }
    std::string text() {
        std::fflush(stderr);
        std::string out;
        std::rewind(_file);
        char buf[4096];
        size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof buf, _file)) > 0)
            out.append(buf, n);
        return out;
    }

private:
    std::FILE* _file = nullptr;
    int _saved = -1;
};

// How many times `what` occurs in `text`.
inline size_t count_of(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
        ++n;
    return n;
}

}  // namespace test_support
