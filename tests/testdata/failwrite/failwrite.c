// failwrite.c: a shared library for LD_PRELOAD that makes the C library's
// write calls on chosen files fail, as a disk would, on one chosen rank.
// The fault suite uses it to prove that a write error the MPI library
// reports as success still fails a checkpoint and keeps the previous one.
//
//   XPMPI_FAILWRITE_RANK   the rank whose writes fail (OMPI_COMM_WORLD_RANK,
//                          PMI_RANK or PMIX_RANK; a process with none of
//                          them is rank 0)
//   XPMPI_FAILWRITE_ERRNO  EIO (default) or ENOSPC
//   XPMPI_FAILWRITE_MATCH  only files whose path ends with this (default .npy;
//                          not Open MPI's own side files such as u.npy.sm...)
//
// It replaces write, writev, pwrite, pwrite64, pwritev, pwritev64 and
// pwritev2. Go's os package makes system calls itself, so only C code (the
// MPI library) is affected.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int state = -1; // -1 unknown, 0 off, 1 on
static int fail_errno = EIO;
static const char *match = ".npy";

static int myrank(void) {
	const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) return atoi(v);
	}
	return 0;
}

static int armed(void) {
	if (state < 0) {
		const char *r = getenv("XPMPI_FAILWRITE_RANK");
		state = r && *r && atoi(r) == myrank();
		const char *e = getenv("XPMPI_FAILWRITE_ERRNO");
		if (e && strcmp(e, "ENOSPC") == 0) fail_errno = ENOSPC;
		const char *m = getenv("XPMPI_FAILWRITE_MATCH");
		if (m && *m) match = m;
	}
	return state;
}

static int hit(int fd) {
	if (!armed()) return 0;
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0) return 0;
	path[n] = 0;
	size_t lm = strlen(match);
	if ((size_t)n < lm || strcmp(path + n - lm, match) != 0) return 0;
	errno = fail_errno;
	return 1;
}

#define NEXT(name) static __typeof__(name) *next; if (!next) next = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n) {
	NEXT(write);
	if (hit(fd)) return -1;
	return next(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
	NEXT(writev);
	if (hit(fd)) return -1;
	return next(fd, iov, cnt);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
	NEXT(pwrite);
	if (hit(fd)) return -1;
	return next(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) {
	NEXT(pwrite64);
	if (hit(fd)) return -1;
	return next(fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
	NEXT(pwritev);
	if (hit(fd)) return -1;
	return next(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) {
	NEXT(pwritev64);
	if (hit(fd)) return -1;
	return next(fd, iov, cnt, off);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags) {
	NEXT(pwritev2);
	if (hit(fd)) return -1;
	return next(fd, iov, cnt, off, flags);
}
