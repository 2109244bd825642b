// Minimal stand-in for absl/log/log.h (absent from Debian bookworm's
// abseil 20220623): LOG streams to stderr; DLOG is compiled out as
// absl's own DLOG is under NDEBUG.
#ifndef SHIM_ABSL_LOG_LOG_H_
#define SHIM_ABSL_LOG_LOG_H_
#include <iostream>
namespace shimlog {
struct Line {
  explicit Line(const char* sev) { std::cerr << sev << " "; }
  ~Line() { std::cerr << std::endl; }
  template <typename T> Line& operator<<(const T& v) { std::cerr << v; return *this; }
};
}
#define LOG(sev) ::shimlog::Line(#sev)
#define DLOG(sev) while (false) ::shimlog::Line(#sev)
#endif
