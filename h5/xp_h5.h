// C helpers of package h5 over HDF5 1.10 (Debian's parallel build, used
// through its default POSIX driver only: see write_on.go).
#ifndef XP_H5_H
#define XP_H5_H

#include <stddef.h>
#include <stdint.h>
#include <hdf5.h>

// Modes of xp_h5_open.
enum { XP_H5_READ = 0, XP_H5_WRITE = 1, XP_H5_CREATE = 2 };

int xp_h5_init(void);
size_t xp_h5_error(char *buf, size_t n);
int xp_h5_exists(hid_t f, const char *path);
int xp_h5_is_dataset(hid_t f, const char *path);
int xp_h5_mkgroup(hid_t f, const char *path);
int xp_h5_info(hid_t f, const char *name, int *dt, int *rank, hsize_t *shape, int maxrank, char *desc, size_t n);
int xp_h5_delete(hid_t f, const char *name);
int xp_h5_create(hid_t f, const char *name, int dt, int rank, const hsize_t *shape, const hsize_t *chunks, int gzip);
int xp_h5_io(hid_t f, const char *name, int dt, int write, int rank, const hsize_t *start, const hsize_t *count,
	const hsize_t *memshape, const hsize_t *memstart, void *buf);
hid_t xp_h5_serial_open(const char *path, int mode);
int xp_h5_create_alloc(hid_t f, const char *name, int dt, int rank, const hsize_t *shape, int64_t *offset);
int xp_h5_offset(hid_t f, const char *name, int64_t *offset);
int xp_h5_storage(hid_t f, const char *name, int64_t *offset);
int xp_h5_serial_close(hid_t f);
int xp_h5_attr_write(hid_t f, const char *obj, const char *name, int kind, size_t n, const void *data);
int xp_h5_attr_count(hid_t f, const char *obj);
int xp_h5_attr_info(hid_t f, const char *obj, int i, char *name, size_t namelen, int *kind, size_t *n);
int xp_h5_attr_read(hid_t f, const char *obj, int i, int kind, size_t n, void *data, size_t cap);

// Kinds of attributes.
enum { XP_ATTR_STRING = 0, XP_ATTR_INT = 1, XP_ATTR_FLOAT = 2 };

#endif
