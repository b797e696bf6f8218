/* Fault injection for sysfs writes (LD_PRELOAD): after a number of
 * successful writes to files whose path contains FAULT_MATCH, every further
 * open (FAULT_ON=open) or write (FAULT_ON=write) of such a file fails with
 * FAULT_ERRNO. As root, file modes do not stop writes, and a fake sysfs tree
 * of plain files never answers EBUSY or EINVAL the way a driver does: this
 * interposer gives the exact errno a real cpufreq file would.
 *
 *   FAULT_MATCH=scaling_setspeed FAULT_ERRNO=EBUSY FAULT_ON=write FAULT_AFTER=3 [FAULT_TIMES=1]
 *
 * FAULT_TIMES bounds the number of failures (a transient EBUSY); unset: every
 * call fails from then on.
 *
 * Only the process's own calls through libc's open/open64/openat/write/close
 * are seen (rubato's write_exact uses exactly those).
 *
 * close is interposed to forget the fd: a descriptor number is reused by the
 * next open, and one made by a path this library does not see (fopen, and so
 * std::ofstream, open inside libc) would otherwise inherit the closed
 * scaling_setspeed's mark. That happened: the ticker's
 * std::ofstream of "<stop>.started" took the number of a setspeed file
 * rubato had just closed, its write was counted as a third setspeed write and
 * took the one transient fault, and rubato never saw it: no degradation in
 * 20 s, in 4 of 40 runs here and 2 of 3 full suites on a fresh machine. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { kMaxFds = 65536 };

static atomic_uchar g_matched[kMaxFds]; /* fd opened on a matching path */
static atomic_long g_done;              /* successful matched writes so far */
static atomic_long g_failed;            /* failures injected so far */
static long g_times;
static const char* g_match;
static int g_errno;
static int g_on_open;
static long g_after;
static atomic_int g_ready;

static int errno_named(const char* name) {
  static const struct {
    const char* name;
    int value;
  } kNames[] = {{"EACCES", EACCES}, {"EBUSY", EBUSY}, {"EINVAL", EINVAL}, {"ENOENT", ENOENT},
                {"EPERM", EPERM},   {"EIO", EIO},     {"ENOSPC", ENOSPC}, {"EROFS", EROFS}};
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i)
    if (name && strcmp(name, kNames[i].name) == 0) return kNames[i].value;
  return EIO;
}

static void setup(void) {
  if (atomic_load(&g_ready)) return;
  g_match = getenv("FAULT_MATCH");
  g_errno = errno_named(getenv("FAULT_ERRNO"));
  const char* on = getenv("FAULT_ON");
  g_on_open = on && strcmp(on, "open") == 0;
  const char* after = getenv("FAULT_AFTER");
  g_after = after ? atol(after) : 0;
  const char* times = getenv("FAULT_TIMES");
  g_times = times ? atol(times) : -1;
  atomic_store(&g_ready, 1);
}

static int matches(const char* path) { return g_match && *g_match && path && strstr(path, g_match); }

/* True when this call is to fail (and counts it). */
static int tripped(void) {
  if (atomic_load(&g_done) < g_after) return 0;
  if (g_times < 0) return 1;
  return atomic_fetch_add(&g_failed, 1) < g_times;
}

static int after_open(int fd, const char* path) {
  if (fd >= 0 && fd < kMaxFds) atomic_store(&g_matched[fd], (unsigned char)matches(path));
  return fd;
}

static int refuse_open(const char* path, int flags) {
  setup();
  return g_on_open && (flags & O_ACCMODE) != O_RDONLY && matches(path) && tripped();
}

#define MODE_ARG(flags, mode)              \
  do {                                     \
    if ((flags) & (O_CREAT | O_TMPFILE)) { \
      va_list ap;                          \
      va_start(ap, flags);                 \
      mode = va_arg(ap, mode_t);           \
      va_end(ap);                          \
    }                                      \
  } while (0)

int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  static int (*real)(const char*, int, ...);
  if (!real) real = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open");
  if (refuse_open(path, flags)) return errno = g_errno, -1;
  return after_open(real(path, flags, mode), path);
}

int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  static int (*real)(const char*, int, ...);
  if (!real) real = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open64");
  if (refuse_open(path, flags)) return errno = g_errno, -1;
  return after_open(real(path, flags, mode), path);
}

int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  MODE_ARG(flags, mode);
  static int (*real)(int, const char*, int, ...);
  if (!real) real = (int (*)(int, const char*, int, ...))dlsym(RTLD_NEXT, "openat");
  if (refuse_open(path, flags)) return errno = g_errno, -1;
  return after_open(real(dirfd, path, flags, mode), path);
}

ssize_t write(int fd, const void* buf, size_t n) {
  static ssize_t (*real)(int, const void*, size_t);
  if (!real) real = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  if (fd >= 0 && fd < kMaxFds && atomic_load(&g_matched[fd])) {
    setup();
    if (!g_on_open && tripped()) return errno = g_errno, -1;
    const ssize_t r = real(fd, buf, n);
    if (r > 0) atomic_fetch_add(&g_done, 1);
    return r;
  }
  return real(fd, buf, n);
}

int close(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "close");
  if (fd >= 0 && fd < kMaxFds) atomic_store(&g_matched[fd], 0);
  return real(fd);
}
