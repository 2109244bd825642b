#ifndef SHIM_ABSL_LOG_GLOBALS_H_
#define SHIM_ABSL_LOG_GLOBALS_H_
#include "absl/base/log_severity.h"
namespace absl {
inline void SetStderrThreshold(absl::LogSeverityAtLeast) {}
inline void EnableLogPrefix(bool) {}
}
#endif
