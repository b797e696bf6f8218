/* The fault injector's own check (write_fault.c): a matched file written and
 * closed, then another file opened inside libc (fopen, as std::ofstream does)
 * that gets the same descriptor number and is written with write(2), then the
 * matched file again. Prints what each write returned:
 *
 *   fault_probe <matched-path> <other-path>   ->  "matched ok\nother ok\nmatched <errno name>\n"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char* outcome(ssize_t r) { return r >= 0 ? "ok" : errno == EBUSY ? "EBUSY" : strerror(errno); }

static void write_matched(const char* path) {
  const int fd = open(path, O_WRONLY | O_TRUNC);
  printf("matched %s\n", outcome(fd < 0 ? -1 : write(fd, "1\n", 2)));
  if (fd >= 0) close(fd);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <matched-path> <other-path>\n", argv[0]);
    return 2;
  }
  write_matched(argv[1]);
  FILE* other = fopen(argv[2], "w");
  if (!other) return perror("fopen"), 2;
  printf("other %s\n", outcome(write(fileno(other), "x\n", 2)));
  fclose(other);
  write_matched(argv[1]);
  return 0;
}
