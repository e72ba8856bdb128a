//go:build hdf5 && mpi && !mpich

#include <stdio.h>
#include <string.h>
#include "xp_h5.h"

// HDF5 clears its error stack on entry to each API call, so a helper
// captures the stack right after the call that failed, into xp_err, before
// it cleans up.
static char xp_err[4096];
static size_t xp_errlen;

static herr_t walk(unsigned n, const H5E_error2_t *e, void *data) {
	(void)data;
	char maj[160] = "", min[160] = "";
	H5Eget_msg(e->maj_num, NULL, maj, sizeof maj);
	H5Eget_msg(e->min_num, NULL, min, sizeof min);
	if (xp_errlen < sizeof xp_err - 1) {
		int k = snprintf(xp_err + xp_errlen, sizeof xp_err - xp_errlen, "%s%s(): %s (%s: %s)",
			n == 0 ? "" : "; ", e->func_name, e->desc, maj, min);
		if (k > 0) {
			xp_errlen += (size_t)k;
			if (xp_errlen > sizeof xp_err - 1) {
				xp_errlen = sizeof xp_err - 1;
			}
		}
	}
	return 0;
}

static void capture(const char *what) {
	xp_errlen = 0;
	xp_err[0] = 0;
	int k = snprintf(xp_err, sizeof xp_err, "%s: ", what);
	if (k > 0) {
		xp_errlen = (size_t)k;
	}
	size_t before = xp_errlen;
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk, NULL);
	if (xp_errlen == before) {
		snprintf(xp_err + xp_errlen, sizeof xp_err - xp_errlen, "failed (HDF5 gave no error stack)");
		xp_errlen = strlen(xp_err);
	}
	H5Eclear2(H5E_DEFAULT);
}

static void fail(const char *msg) {
	snprintf(xp_err, sizeof xp_err, "%s", msg);
	xp_errlen = strlen(xp_err);
}

#define CHECK(call, what) do { if ((call) < 0) { capture(what); goto out; } } while (0)

size_t xp_h5_error(char *buf, size_t n) {
	size_t k = xp_errlen < n - 1 ? xp_errlen : n - 1;
	memcpy(buf, xp_err, k);
	buf[k] = 0;
	xp_errlen = 0;
	xp_err[0] = 0;
	return k;
}

int xp_h5_init(void) {
	if (H5open() < 0) {
		return -1;
	}
	// Errors come back to Go as messages: HDF5 prints none.
	return H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

// xp_h5_exists returns 1 if every link on path exists, 0 if one does not,
// -1 on an error.
int xp_h5_exists(hid_t f, const char *path) {
	char buf[4096];
	size_t n = strlen(path);
	if (n >= sizeof buf) {
		fail("path too long");
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == 0) {
			char c = buf[i];
			buf[i] = 0;
			htri_t e = H5Lexists(f, buf, H5P_DEFAULT);
			buf[i] = c;
			if (e < 0) {
				capture("H5Lexists");
				return -1;
			}
			if (e == 0) {
				return 0;
			}
		}
	}
	return 1;
}

// xp_h5_is_dataset returns 1 for a dataset, 0 for another object.
int xp_h5_is_dataset(hid_t f, const char *path) {
	H5O_info_t info;
	if (H5Oget_info_by_name2(f, path, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
		capture("H5Oget_info_by_name");
		return -1;
	}
	return info.type == H5O_TYPE_DATASET;
}

int xp_h5_mkgroup(hid_t f, const char *path) {
	int rc = -1;
	hid_t lcpl = -1, g = -1;
	int e = xp_h5_exists(f, path);
	if (e != 0) {
		return e < 0 ? -1 : 0;
	}
	CHECK(lcpl = H5Pcreate(H5P_LINK_CREATE), "H5Pcreate");
	CHECK(H5Pset_create_intermediate_group(lcpl, 1), "H5Pset_create_intermediate_group");
	CHECK(g = H5Gcreate2(f, path, lcpl, H5P_DEFAULT, H5P_DEFAULT), "H5Gcreate");
	rc = 0;
out:
	if (g >= 0) H5Gclose(g);
	if (lcpl >= 0) H5Pclose(lcpl);
	return rc;
}

// mtype returns the memory type of a DType of package backend (its order:
// float32, float64, int32, int64, uint32, uint64, int8, int16, uint8,
// uint16, complex64, complex128); complex as h5py's compound {r, i}, which
// the caller closes (owned).
static hid_t mtype(int dt, int *owned) {
	*owned = 0;
	switch (dt) {
	case 0: return H5T_NATIVE_FLOAT;
	case 1: return H5T_NATIVE_DOUBLE;
	case 2: return H5T_NATIVE_INT32;
	case 3: return H5T_NATIVE_INT64;
	case 4: return H5T_NATIVE_UINT32;
	case 5: return H5T_NATIVE_UINT64;
	case 6: return H5T_NATIVE_INT8;
	case 7: return H5T_NATIVE_INT16;
	case 8: return H5T_NATIVE_UINT8;
	case 9: return H5T_NATIVE_UINT16;
	case 10:
	case 11: {
		hid_t base = dt == 10 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
		size_t s = H5Tget_size(base);
		hid_t t = H5Tcreate(H5T_COMPOUND, 2 * s);
		if (t < 0 || H5Tinsert(t, "r", 0, base) < 0 || H5Tinsert(t, "i", s, base) < 0) {
			capture("H5Tcreate (complex)");
			return -1;
		}
		*owned = 1;
		return t;
	}
	}
	fail("unknown element type");
	return -1;
}

static const char *classname(H5T_class_t c) {
	switch (c) {
	case H5T_INTEGER: return "integer";
	case H5T_FLOAT: return "float";
	case H5T_TIME: return "time";
	case H5T_STRING: return "string";
	case H5T_BITFIELD: return "bitfield";
	case H5T_OPAQUE: return "opaque";
	case H5T_COMPOUND: return "compound";
	case H5T_REFERENCE: return "reference";
	case H5T_ENUM: return "enum (h5py's bool is one)";
	case H5T_VLEN: return "variable-length";
	case H5T_ARRAY: return "array";
	default: return "unknown";
	}
}

// classify returns the DType of a file type, or -1 with a description.
static int classify(hid_t t, char *desc, size_t n) {
	H5T_class_t c = H5Tget_class(t);
	size_t s = H5Tget_size(t);
	if (c == H5T_INTEGER) {
		int sign = H5Tget_sign(t) == H5T_SGN_2;
		switch (s) {
		case 1: return sign ? 6 : 8;
		case 2: return sign ? 7 : 9;
		case 4: return sign ? 2 : 4;
		case 8: return sign ? 3 : 5;
		}
	} else if (c == H5T_FLOAT) {
		if (s == 4) return 0;
		if (s == 8) return 1;
	} else if (c == H5T_COMPOUND && H5Tget_nmembers(t) == 2 && (s == 8 || s == 16)) {
		char *r = H5Tget_member_name(t, 0), *i = H5Tget_member_name(t, 1);
		hid_t tr = H5Tget_member_type(t, 0), ti = H5Tget_member_type(t, 1);
		int ok = r && i && strcmp(r, "r") == 0 && strcmp(i, "i") == 0 &&
			H5Tget_class(tr) == H5T_FLOAT && H5Tget_class(ti) == H5T_FLOAT &&
			H5Tget_size(tr) == s / 2 && H5Tget_size(ti) == s / 2 &&
			H5Tget_member_offset(t, 0) == 0 && H5Tget_member_offset(t, 1) == s / 2;
		H5free_memory(r);
		H5free_memory(i);
		H5Tclose(tr);
		H5Tclose(ti);
		if (ok) {
			return s == 8 ? 10 : 11;
		}
		snprintf(desc, n, "a compound type of %zu bytes that is not h5py's complex {r, i}", s);
		return -1;
	}
	snprintf(desc, n, "HDF5 type class %s of %zu bytes", classname(c), s);
	return -1;
}

int xp_h5_info(hid_t f, const char *name, int *dt, int *rank, hsize_t *shape, int maxrank, char *desc, size_t n) {
	int rc = -1;
	hid_t d = -1, t = -1, s = -1;
	desc[0] = 0;
	CHECK(d = H5Dopen2(f, name, H5P_DEFAULT), "H5Dopen");
	CHECK(t = H5Dget_type(d), "H5Dget_type");
	CHECK(s = H5Dget_space(d), "H5Dget_space");
	*dt = classify(t, desc, n);
	H5S_class_t sc = H5Sget_simple_extent_type(s);
	if (sc == H5S_NULL) {
		*rank = -1;
	} else if (sc == H5S_SCALAR) {
		*rank = 0;
	} else {
		int r;
		CHECK(r = H5Sget_simple_extent_ndims(s), "H5Sget_simple_extent_ndims");
		*rank = r;
		if (r <= maxrank) {
			CHECK(H5Sget_simple_extent_dims(s, shape, NULL), "H5Sget_simple_extent_dims");
		}
	}
	rc = 0;
out:
	if (s >= 0) H5Sclose(s);
	if (t >= 0) H5Tclose(t);
	if (d >= 0) H5Dclose(d);
	return rc;
}

int xp_h5_delete(hid_t f, const char *name) {
	if (H5Ldelete(f, name, H5P_DEFAULT) < 0) {
		capture("H5Ldelete");
		return -1;
	}
	return 0;
}

int xp_h5_create(hid_t f, const char *name, int dt, int rank, const hsize_t *shape, const hsize_t *chunks, int gzip) {
	int rc = -1, owned = 0;
	hid_t space = -1, dcpl = -1, lcpl = -1, type = -1, d = -1;
	CHECK(space = H5Screate_simple(rank, shape, NULL), "H5Screate_simple");
	CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
	if (chunks) {
		CHECK(H5Pset_chunk(dcpl, rank, chunks), "H5Pset_chunk");
	}
	if (gzip >= 0) {
		CHECK(H5Pset_deflate(dcpl, (unsigned)gzip), "H5Pset_deflate");
	}
	// Every element is written by Save: no fill pass first.
	CHECK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
	CHECK(lcpl = H5Pcreate(H5P_LINK_CREATE), "H5Pcreate");
	CHECK(H5Pset_create_intermediate_group(lcpl, 1), "H5Pset_create_intermediate_group");
	if ((type = mtype(dt, &owned)) < 0) goto out;
	CHECK(d = H5Dcreate2(f, name, type, space, lcpl, dcpl, H5P_DEFAULT), "H5Dcreate");
	rc = 0;
out:
	if (d >= 0) H5Dclose(d);
	if (owned) H5Tclose(type);
	if (lcpl >= 0) H5Pclose(lcpl);
	if (dcpl >= 0) H5Pclose(dcpl);
	if (space >= 0) H5Sclose(space);
	return rc;
}

static char dummy[16];

// xp_h5_io reads or writes the box at start of extent count of dataset
// name, which lies at memstart in buf (an array of memshape), on this rank
// alone (a file of xp_h5_serial_open).
int xp_h5_io(hid_t f, const char *name, int dt, int write, int rank, const hsize_t *start, const hsize_t *count,
	const hsize_t *memshape, const hsize_t *memstart, void *buf) {
	int rc = -1, owned = 0;
	hid_t d = -1, fs = -1, ms = -1, type = -1;
	hsize_t one = 1;
	int empty = 0;
	for (int a = 0; a < rank; a++) {
		if (count[a] == 0) empty = 1;
	}
	CHECK(d = H5Dopen2(f, name, H5P_DEFAULT), "H5Dopen");
	CHECK(fs = H5Dget_space(d), "H5Dget_space");
	if (empty) {
		CHECK(H5Sselect_none(fs), "H5Sselect_none");
		CHECK(ms = H5Screate_simple(1, &one, NULL), "H5Screate_simple");
		CHECK(H5Sselect_none(ms), "H5Sselect_none");
		buf = dummy;
	} else {
		CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "H5Sselect_hyperslab (file)");
		CHECK(ms = H5Screate_simple(rank, memshape, NULL), "H5Screate_simple");
		CHECK(H5Sselect_hyperslab(ms, H5S_SELECT_SET, memstart, NULL, count, NULL), "H5Sselect_hyperslab (memory)");
	}
	if ((type = mtype(dt, &owned)) < 0) goto out;
	if (write) {
		CHECK(H5Dwrite(d, type, ms, fs, H5P_DEFAULT, buf), "H5Dwrite");
	} else {
		CHECK(H5Dread(d, type, ms, fs, H5P_DEFAULT, buf), "H5Dread");
	}
	rc = 0;
out:
	if (owned) H5Tclose(type);
	if (ms >= 0) H5Sclose(ms);
	if (fs >= 0) H5Sclose(fs);
	if (d >= 0) H5Dclose(d);
	return rc;
}

static hid_t strtype(void) {
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		return -1;
	}
	return t;
}

int xp_h5_attr_write(hid_t f, const char *obj, const char *name, int kind, size_t n, const void *data) {
	int rc = -1;
	hid_t space = -1, type = -1, a = -1;
	htri_t e;
	hsize_t dims = n;
	CHECK(e = H5Aexists_by_name(f, obj, name, H5P_DEFAULT), "H5Aexists_by_name");
	if (e > 0) {
		CHECK(H5Adelete_by_name(f, obj, name, H5P_DEFAULT), "H5Adelete_by_name");
	}
	if (n == 0) {
		CHECK(space = H5Screate(H5S_SCALAR), "H5Screate");
	} else {
		CHECK(space = H5Screate_simple(1, &dims, NULL), "H5Screate_simple");
	}
	if (kind == XP_ATTR_STRING) {
		CHECK(type = strtype(), "H5Tcopy (string)");
	} else {
		type = H5Tcopy(kind == XP_ATTR_INT ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE);
	}
	CHECK(a = H5Acreate_by_name(f, obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate");
	if (kind == XP_ATTR_STRING) {
		CHECK(H5Awrite(a, type, &data), "H5Awrite");
	} else {
		CHECK(H5Awrite(a, type, data), "H5Awrite");
	}
	rc = 0;
out:
	if (a >= 0) H5Aclose(a);
	if (type >= 0) H5Tclose(type);
	if (space >= 0) H5Sclose(space);
	return rc;
}

int xp_h5_attr_count(hid_t f, const char *obj) {
	H5O_info_t info;
	if (H5Oget_info_by_name2(f, obj, &info, H5O_INFO_NUM_ATTRS, H5P_DEFAULT) < 0) {
		capture("H5Oget_info_by_name");
		return -1;
	}
	return (int)info.num_attrs;
}

// xp_h5_attr_info gives the name of attribute i of obj, its kind (-1 for
// one this package does not read) and its number of elements (0 for a
// scalar).
int xp_h5_attr_info(hid_t f, const char *obj, int i, char *name, size_t namelen, int *kind, size_t *n) {
	int rc = -1;
	hid_t a = -1, t = -1, s = -1;
	CHECK(a = H5Aopen_by_idx(f, obj, H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, H5P_DEFAULT, H5P_DEFAULT), "H5Aopen_by_idx");
	CHECK(H5Aget_name(a, namelen, name), "H5Aget_name");
	CHECK(t = H5Aget_type(a), "H5Aget_type");
	CHECK(s = H5Aget_space(a), "H5Aget_space");
	switch (H5Tget_class(t)) {
	case H5T_STRING: *kind = XP_ATTR_STRING; break;
	case H5T_INTEGER: *kind = XP_ATTR_INT; break;
	case H5T_FLOAT: *kind = XP_ATTR_FLOAT; break;
	default: *kind = -1;
	}
	*n = H5Sget_simple_extent_type(s) == H5S_SCALAR ? 0 : (size_t)H5Sget_simple_extent_npoints(s);
	if (*kind == XP_ATTR_STRING && *n != 0) {
		*kind = -1; // arrays of strings are not read
	}
	rc = 0;
out:
	if (s >= 0) H5Sclose(s);
	if (t >= 0) H5Tclose(t);
	if (a >= 0) H5Aclose(a);
	return rc;
}

// xp_h5_attr_read reads attribute i of obj: numbers into data (n or one
// int64 or double), a string into data (cap bytes); for a string it returns
// its length, which may exceed cap (then nothing is copied).
int xp_h5_attr_read(hid_t f, const char *obj, int i, int kind, size_t n, void *data, size_t cap) {
	int rc = -1;
	hid_t a = -1, t = -1, mt = -1;
	CHECK(a = H5Aopen_by_idx(f, obj, H5_INDEX_NAME, H5_ITER_INC, (hsize_t)i, H5P_DEFAULT, H5P_DEFAULT), "H5Aopen_by_idx");
	if (kind == XP_ATTR_INT) {
		CHECK(H5Aread(a, H5T_NATIVE_INT64, data), "H5Aread");
		rc = 0;
	} else if (kind == XP_ATTR_FLOAT) {
		CHECK(H5Aread(a, H5T_NATIVE_DOUBLE, data), "H5Aread");
		rc = 0;
	} else {
		CHECK(t = H5Aget_type(a), "H5Aget_type");
		if (H5Tis_variable_str(t) > 0) {
			char *p = NULL;
			CHECK(mt = H5Tcopy(t), "H5Tcopy");
			CHECK(H5Aread(a, mt, &p), "H5Aread");
			size_t len = p ? strlen(p) : 0;
			if (len <= cap && p) memcpy(data, p, len);
			H5free_memory(p);
			rc = (int)len;
		} else {
			size_t s = H5Tget_size(t);
			if (s > cap) {
				rc = (int)s;
			} else {
				char tmp[s + 1];
				CHECK(H5Aread(a, t, tmp), "H5Aread");
				tmp[s] = 0;
				size_t len = strlen(tmp);
				while (len > 0 && tmp[len - 1] == ' ') len--; // space-padded strings
				memcpy(data, tmp, len);
				rc = (int)len;
			}
		}
	}
	(void)n;
out:
	if (mt >= 0) H5Tclose(mt);
	if (t >= 0) H5Tclose(t);
	if (a >= 0) H5Aclose(a);
	return rc;
}

// Every file is opened with HDF5's default (POSIX) driver, by one rank
// (writers: one at a time) or, read-only, by every rank on its own
// (write_on.go has the design): no HDF5 call is collective.

hid_t xp_h5_serial_open(const char *path, int mode) {
	hid_t f = -1;
	if (mode == XP_H5_CREATE) {
		CHECK(f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "H5Fcreate");
	} else {
		CHECK(f = H5Fopen(path, mode == XP_H5_WRITE ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen");
	}
out:
	return f;
}

// xp_h5_create_alloc makes a contiguous dataset with its storage allocated
// now, and returns its byte offset in the file (-1: it has no storage, no
// elements).
int xp_h5_create_alloc(hid_t f, const char *name, int dt, int rank, const hsize_t *shape, int64_t *offset) {
	int rc = -1, owned = 0;
	hid_t space = -1, dcpl = -1, lcpl = -1, type = -1, d = -1;
	CHECK(space = H5Screate_simple(rank, shape, NULL), "H5Screate_simple");
	CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
	CHECK(H5Pset_layout(dcpl, H5D_CONTIGUOUS), "H5Pset_layout");
	CHECK(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
	CHECK(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
	CHECK(lcpl = H5Pcreate(H5P_LINK_CREATE), "H5Pcreate");
	CHECK(H5Pset_create_intermediate_group(lcpl, 1), "H5Pset_create_intermediate_group");
	if ((type = mtype(dt, &owned)) < 0) goto out;
	CHECK(d = H5Dcreate2(f, name, type, space, lcpl, dcpl, H5P_DEFAULT), "H5Dcreate");
	haddr_t a = H5Dget_offset(d);
	*offset = a == HADDR_UNDEF ? -1 : (int64_t)a;
	rc = 0;
out:
	if (d >= 0) H5Dclose(d);
	if (owned) H5Tclose(type);
	if (lcpl >= 0) H5Pclose(lcpl);
	if (dcpl >= 0) H5Pclose(dcpl);
	if (space >= 0) H5Sclose(space);
	return rc;
}

// xp_h5_offset returns the byte offset of a contiguous dataset's storage
// (-1: none), or -1 with an error where it is not contiguous.
int xp_h5_offset(hid_t f, const char *name, int64_t *offset) {
	int rc = -1;
	hid_t d = -1, dcpl = -1;
	CHECK(d = H5Dopen2(f, name, H5P_DEFAULT), "H5Dopen");
	CHECK(dcpl = H5Dget_create_plist(d), "H5Dget_create_plist");
	if (H5Pget_layout(dcpl) != H5D_CONTIGUOUS) {
		fail("not a contiguous dataset");
		goto out;
	}
	haddr_t a = H5Dget_offset(d);
	*offset = a == HADDR_UNDEF ? -1 : (int64_t)a;
	rc = 0;
out:
	if (dcpl >= 0) H5Pclose(dcpl);
	if (d >= 0) H5Dclose(d);
	return rc;
}

// xp_h5_storage returns 1 for a contiguous dataset, with the byte offset
// of its storage (-1: none allocated, or in an external file), 0 for
// another layout (chunked, compact, virtual), -1 on an error.
int xp_h5_storage(hid_t f, const char *name, int64_t *offset) {
	int rc = -1;
	hid_t d = -1, dcpl = -1;
	CHECK(d = H5Dopen2(f, name, H5P_DEFAULT), "H5Dopen");
	CHECK(dcpl = H5Dget_create_plist(d), "H5Dget_create_plist");
	*offset = -1;
	rc = 0;
	if (H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) == 0) {
		haddr_t a = H5Dget_offset(d);
		*offset = a == HADDR_UNDEF ? -1 : (int64_t)a;
		rc = 1;
	}
out:
	if (dcpl >= 0) H5Pclose(dcpl);
	if (d >= 0) H5Dclose(d);
	return rc;
}

// xp_h5_serial_close closes a file of xp_h5_serial_open.
int xp_h5_serial_close(hid_t f) {
	if (H5Fclose(f) < 0) {
		capture("H5Fclose");
		return -1;
	}
	return 0;
}
