// srv6ctl without a command: a shell on a terminal, one command a line otherwise.
#pragma once

#include <cstdio>
#include <string>

namespace srv6ctl {

// The prompt (libedit: line editing, history in ~/.srv6ctl_history), `?` listing what may come
// next with one line of help each, TAB completing keywords and srv6d's VRFs, ports and SIDs
// (files after `file`), until exit, end, quit or end of input. Exit status 0.
int run_shell(const std::string& socket, bool json);

// Stdin not a terminal (a pipe, a file): each line is a command, run as one-shot srv6ctl runs
// it; errors name the line. Blank lines and `#` comments are skipped; exit/end/quit stop.
// Exit status: the highest of the lines' (0 all done, 1 one failed, 2 one did not parse).
int run_lines(const std::string& socket, bool json, std::FILE* in);

}  // namespace srv6ctl
