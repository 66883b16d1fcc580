// Runs the netasic command as a user would and captures its exit code and output.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

struct outcome { int code; std::string output; };

inline outcome netasic(const std::string& args) {
  const std::string cmd = std::string(NETASIC_BINARY) + " " + args + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int status = pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
