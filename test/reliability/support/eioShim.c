/*
 * An LD_PRELOAD library that makes a disk fail on demand (test/reliability/
 * hostile-load-storage-eio.test.ts): while the file named by EIO_SHIM_FLAG exists, every
 * write, pwrite, fsync and fdatasync on a file whose path contains EIO_SHIM_MATCH fails with
 * EIO, as a failing device answers, before the real call is made (so the kernel never sees a
 * failed write and nothing is half written). Everything else passes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int failing(int fd) {
  const char *flag = getenv("EIO_SHIM_FLAG");
  const char *match = getenv("EIO_SHIM_MATCH");
  if (flag == NULL || match == NULL || access(flag, F_OK) != 0) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 0) return 0;
  path[n] = '\0';
  return strstr(path, match) != NULL;
}

#define REAL(name) static __typeof__(name) *real_##name; if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
  REAL(write);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_write(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  REAL(pwrite);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_pwrite(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
  REAL(pwrite64);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_pwrite64(fd, buf, count, offset);
}

int fsync(int fd) {
  REAL(fsync);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_fsync(fd);
}

int fdatasync(int fd) {
  REAL(fdatasync);
  if (failing(fd)) { errno = EIO; return -1; }
  return real_fdatasync(fd);
}
