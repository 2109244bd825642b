/*
 * memrec: an LD_PRELOAD interposer that records the CPU allocator's calls.
 *
 * c10's CPU allocator takes tensor memory with posix_memalign and returns it
 * with free. Between memrec_start(path) and memrec_stop() this library
 * writes one line per call to path: "a ADDR BYTES" for a posix_memalign that
 * succeeded and was called from libc10 (c10::alloc_cpu: other libraries,
 * oneDNN's primitive objects say, are not tensor memory), "f ADDR" for a
 * free of an address such a call returned while recording. Frees of other memory (malloc's, or blocks from before the
 * start) are not written: a fixed open-addressing table, which allocates
 * nothing, remembers the live addresses. The recorder (record.py) builds
 * this file with the system's C compiler and turns the log into a membench
 * trace.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS (1u << 22) /* live addresses at once, at most half of it */
#define TOMB ((uintptr_t)1)

static uintptr_t live[SLOTS];
static int fd = -1;
static volatile int on;
static int (*real_memalign)(void **, size_t, size_t);
static void (*real_free)(void *);
static char buf[1 << 16];
static size_t used;

static void flush(void) {
  size_t off = 0;
  while (off < used) {
    ssize_t n = write(fd, buf + off, used - off);
    if (n <= 0) break;
    off += (size_t)n;
  }
  used = 0;
}

static void put_u(uintptr_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) buf[used++] = tmp[--n];
}

static void emit(char kind, uintptr_t addr, uintptr_t size, int with_size) {
  if (used > sizeof buf - 64) flush();
  buf[used++] = kind;
  buf[used++] = ' ';
  put_u(addr);
  if (with_size) {
    buf[used++] = ' ';
    put_u(size);
  }
  buf[used++] = '\n';
}

static size_t slot(uintptr_t a) { return (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull >> 42) & (SLOTS - 1); }

static void remember(uintptr_t a) {
  for (size_t i = slot(a);; i = (i + 1) & (SLOTS - 1)) {
    if (live[i] == 0 || live[i] == TOMB) {
      live[i] = a;
      return;
    }
  }
}

static int forget(uintptr_t a) {
  for (size_t i = slot(a);; i = (i + 1) & (SLOTS - 1)) {
    if (live[i] == 0) return 0;
    if (live[i] == a) {
      live[i] = TOMB;
      return 1;
    }
  }
}

static void resolve(void) {
  if (!real_memalign) real_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
  if (!real_free) real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
}

/* from_c10 reports whether the code at ret belongs to libc10. */
static int from_c10(void *ret) {
  Dl_info info;
  return dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, "libc10.so");
}

int posix_memalign(void **out, size_t align, size_t size) {
  resolve();
  int rc = real_memalign(out, align, size);
  if (on && rc == 0 && *out && from_c10(__builtin_return_address(0))) {
    remember((uintptr_t)*out);
    emit('a', (uintptr_t)*out, size, 1);
  }
  return rc;
}

void free(void *p) {
  resolve();
  if (on && p && forget((uintptr_t)p)) emit('f', (uintptr_t)p, 0, 0);
  real_free(p);
}

int memrec_start(const char *path) {
  resolve();
  memset(live, 0, sizeof live);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  used = 0;
  on = 1;
  return 0;
}

int memrec_stop(void) {
  on = 0;
  if (fd < 0) return -1;
  flush();
  close(fd);
  fd = -1;
  return 0;
}
