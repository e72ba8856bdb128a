// fakecuda.cpp: a fake CUDA driver (to be built as libcuda.so.1) and a fake
// NVRTC, for the tests of backend/cuda on machines without a GPU. It is
// ours, written from the public documentation of the driver API; it uses no
// NVIDIA file.
//
// Device memory is host memory; every copy and memset is checked against
// the live allocations (a range outside them, or overlapping device copies,
// is an error). Kernels are those of ../../kernels.cu compiled as C++ (the
// test adds -I for it) and run on the host: the blocks of a launch one after
// the other, the threads of a block as fibers that switch at __syncthreads
// (an error if the threads of a block do not all reach the same barriers).
// Launches run synchronously; streams and events are trivial. A context
// must be current on the calling thread for every call that needs one, as
// with the real driver.
//
// cuModuleGetFunction finds an entry only if it was compiled in and, for
// PTX from a real NVRTC, if the PTX has ".entry <name>(". The fake NVRTC
// (used where no real one is found, or where a test asks for it) returns
// PTX that says it is fake, with the variant tag of a kernel of package
// kernels ("// xpmpi kernel <tag>", the first line of its variant source):
// an entry registered with XP_REGISTER_KEY under "name|tag" is found
// first, so that every variant of a kernel can be compiled in.
//
// Environment: FAKECUDA_DEVICES=N devices (default 1; 0 makes cuInit
// return CUDA_ERROR_NO_DEVICE, as the real driver does without a GPU).

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#define API extern "C" __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
	OK = 0,
	ERR_INVALID_VALUE = 1,
	ERR_OUT_OF_MEMORY = 2,
	ERR_NOT_INITIALIZED = 3,
	ERR_NO_DEVICE = 100,
	ERR_INVALID_DEVICE = 101,
	ERR_INVALID_CONTEXT = 201,
	ERR_INVALID_PTX = 218,
	ERR_INVALID_HANDLE = 400,
	ERR_NOT_FOUND = 500,
	ERR_HOST_MEMORY_ALREADY_REGISTERED = 712,
	ERR_HOST_MEMORY_NOT_REGISTERED = 713,
	ERR_LAUNCH_FAILED = 719,
};

// ---- the emulated CUDA C environment of kernels.cu ----

struct dim3 {
	unsigned int x, y, z;
};
static dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

static void __syncthreads();

static unsigned long long atomicMin(unsigned long long *a, unsigned long long v)
{
	unsigned long long old = *a; // blocks run one at a time, fibers switch at barriers only
	if (v < old) {
		*a = v;
	}
	return old;
}

static unsigned long long atomicAdd(unsigned long long *a, unsigned long long v)
{
	unsigned long long old = *a; // as atomicMin: blocks run one at a time
	*a = old + v;
	return old;
}

struct Entry {
	std::function<void(void **)> call;
	bool syncs;
};

static std::map<std::string, Entry> &registry()
{
	static std::map<std::string, Entry> r;
	return r;
}

template <typename... A, std::size_t... I>
static void call_with(void (*f)(A...), void **p, std::index_sequence<I...>)
{
	f(*static_cast<A *>(p[I])...);
}

struct xp_registrar {
	template <typename... A> xp_registrar(const char *name, void (*f)(A...), int syncs)
	{
		registry()[name] = Entry{[f](void **p) { call_with(f, p, std::index_sequence_for<A...>{}); }, syncs != 0};
	}
};

#define XP_HOST_EMULATION 1
#define XP_REGISTER(name, syncs) static xp_registrar xp_reg_##name(#name, name, syncs);
// XP_REGISTER_KEY registers an entry under a key of its own, "name|tag":
// one variant of a kernel of package kernels, whose variant source starts
// with the line "// xpmpi kernel <tag>" (tag: "name, variant float32").
// The fake NVRTC copies that tag into its PTX, and cuModuleGetFunction
// looks the entry up by name and tag first, so that every variant of a
// kernel (each compiled in a namespace of its own) can be compiled in.
#define XP_REGISTER_KEY(name, key, syncs) static xp_registrar xp_reg_##name(key, name, syncs);

#include "kernels.cu"
// XP_FAKECUDA_KERNELS_ONLY leaves out the backend's other kernel files: a
// driver built for kernels of its own (internal/fakecudatest) needs only
// kernels.cu's fills and copies, and compiles in a fraction of the time.
#ifndef XP_FAKECUDA_KERNELS_ONLY
#include "math.cu"
#include "stats.cu"
#include "convert.cu"
#include "gemm.cu"
#include "stencil.cu"
#include "random.cu"
#include "fft.cu"
#include "sort.cu"
#include "complex.cu"
#endif

// ---- fibers: the threads of a block ----

#if defined(__x86_64__)
// fiber_switch saves the callee-saved registers on the current stack, stores
// the stack pointer in *save, and resumes the fiber whose stack pointer is
// next.
extern "C" void fiber_switch(void **save, void *next);
asm(R"(
	.text
	.globl fiber_switch
	.hidden fiber_switch
	.type fiber_switch,@function
fiber_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size fiber_switch, .-fiber_switch
)");
#else
#error "fakecuda: fibers are implemented for x86-64 only"
#endif

struct Fiber {
	void *sp;
	bool done;
	dim3 tid;
};

static const size_t stack_bytes = 64 * 1024;
static std::vector<Fiber> fibers;
static std::vector<char *> stacks;
static void *sched_sp;
static size_t cur;
static const Entry *cur_entry;
static void **cur_params;
static bool in_fiber;
static bool barrier_error;

static void fiber_main()
{
	cur_entry->call(cur_params);
	fibers[cur].done = true;
	fiber_switch(&fibers[cur].sp, sched_sp);
	abort(); // never resumed
}

static void init_fiber(size_t i)
{
	uintptr_t top = (uintptr_t)(stacks[i] + stack_bytes) & ~(uintptr_t)15;
	void **sp = (void **)top;
	*--sp = nullptr;              // the return address of fiber_main (never used)
	*--sp = (void *)&fiber_main;  // where fiber_switch's ret goes
	for (int k = 0; k < 6; k++) { // rbp rbx r12 r13 r14 r15
		*--sp = nullptr;
	}
	fibers[i].sp = sp;
	fibers[i].done = false;
}

static void __syncthreads()
{
	if (!in_fiber) {
		fprintf(stderr, "fakecuda: __syncthreads in a kernel registered without barriers\n");
		abort();
	}
	fiber_switch(&fibers[cur].sp, sched_sp);
}

static void run_block(const Entry &e, void **params)
{
	size_t nt = (size_t)blockDim.x * blockDim.y * blockDim.z;
	if (!e.syncs) {
		for (unsigned z = 0; z < blockDim.z; z++) {
			for (unsigned y = 0; y < blockDim.y; y++) {
				for (unsigned x = 0; x < blockDim.x; x++) {
					threadIdx = dim3{x, y, z};
					e.call(params);
				}
			}
		}
		return;
	}
	while (stacks.size() < nt) {
		stacks.push_back((char *)malloc(stack_bytes));
	}
	fibers.resize(nt);
	size_t i = 0;
	for (unsigned z = 0; z < blockDim.z; z++) {
		for (unsigned y = 0; y < blockDim.y; y++) {
			for (unsigned x = 0; x < blockDim.x; x++, i++) {
				init_fiber(i);
				fibers[i].tid = dim3{x, y, z};
			}
		}
	}
	cur_entry = &e;
	cur_params = params;
	in_fiber = true;
	size_t live = nt;
	while (live > 0) {
		size_t finished = 0, before = live;
		for (i = 0; i < nt; i++) {
			if (fibers[i].done) {
				continue;
			}
			cur = i;
			threadIdx = fibers[i].tid;
			fiber_switch(&sched_sp, fibers[i].sp);
			if (fibers[i].done) {
				finished++;
			}
		}
		live -= finished;
		if (finished > 0 && finished < before) {
			// Some threads returned while others wait at a barrier.
			barrier_error = true;
			fprintf(stderr, "fakecuda: threads of a block did not all reach __syncthreads\n");
			// Let the others run to their end.
		}
	}
	in_fiber = false;
}

// ---- driver state ----

static std::mutex mu; // everything below, and launches
static bool initialized;
static int ndev = 1;
static int sticky; // an error of an earlier launch, returned by synchronizations

struct xpCUctx {
	int dev;
};
static xpCUctx contexts[16];
static thread_local xpCUctx *current;

struct Alloc {
	size_t bytes;
};
static std::map<uintptr_t, Alloc> allocs;              // device memory
static std::set<uintptr_t> host_allocs;                 // cuMemAllocHost
static std::map<uintptr_t, size_t> registered;          // cuMemHostRegister
static size_t allocated;

struct xpCUstream {
	int dummy;
};
struct xpCUevent {
	std::chrono::steady_clock::time_point t;
	bool timing;
	bool recorded;
};
struct xpCUmodule {
	std::string ptx;
	bool fake;
	std::string tag; // the variant tag of the fake NVRTC's PTX, or ""
};
struct xpCUfunction {
	const Entry *entry;
	std::string name;
	int max_dynamic_shared = 48 << 10; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
};

// The device's shared memory per block after opting in, an H100's and
// H200's (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
static const int shared_optin = 232448;

static int env_int(const char *name, int def)
{
	const char *s = getenv(name);
	return (s && *s) ? atoi(s) : def;
}

#define NEED_INIT() \
	if (!initialized) return ERR_NOT_INITIALIZED
#define NEED_CTX() \
	if (!initialized) return ERR_NOT_INITIALIZED; \
	if (current == nullptr) return ERR_INVALID_CONTEXT

// in_device reports whether [p, p+n) lies in one live allocation.
static bool in_device(CUdeviceptr p, size_t n, const char *what)
{
	auto it = allocs.upper_bound((uintptr_t)p);
	if (it != allocs.begin()) {
		--it;
		if ((uintptr_t)p >= it->first && (uintptr_t)p + n <= it->first + it->second.bytes) {
			return true;
		}
	}
	fprintf(stderr, "fakecuda: %s: %zu bytes at %#llx are not device memory\n", what, n, p);
	return false;
}

API CUresult cuInit(unsigned int flags)
{
	std::lock_guard<std::mutex> g(mu);
	if (flags != 0) {
		return ERR_INVALID_VALUE;
	}
	ndev = env_int("FAKECUDA_DEVICES", 1);
	if (ndev <= 0) {
		return ERR_NO_DEVICE;
	}
	if (ndev > 16) {
		ndev = 16;
	}
	initialized = true;
	return OK;
}

API CUresult cuDriverGetVersion(int *v)
{
	*v = 13000;
	return OK;
}

API CUresult cuDeviceGetCount(int *n)
{
	NEED_INIT();
	*n = ndev;
	return OK;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	NEED_INIT();
	if (ordinal < 0 || ordinal >= ndev) {
		return ERR_INVALID_DEVICE;
	}
	*d = ordinal;
	return OK;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	NEED_INIT();
	snprintf(name, (size_t)len, "Fake CUDA device %d (host emulation)", d);
	return OK;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	NEED_INIT();
	*bytes = (size_t)16 << 30;
	return OK;
}

API CUresult cuDeviceGetAttribute(int *v, int attrib, CUdevice d)
{
	NEED_INIT();
	switch (attrib) {
	case 75: // compute capability major
		*v = 9;
		break;
	case 76:
		*v = 0;
		break;
	case 16: // multiprocessors
		*v = 4;
		break;
	case 33: // PCI bus
		*v = 0x10 + d;
		break;
	case 97: // shared memory per block, opted in
		*v = shared_optin;
		break;
	default:
		*v = 0;
	}
	return OK;
}

API CUresult cuDevicePrimaryCtxRetain(xpCUctx **c, CUdevice d)
{
	NEED_INIT();
	if (d < 0 || d >= ndev) {
		return ERR_INVALID_DEVICE;
	}
	contexts[d].dev = d;
	*c = &contexts[d];
	return OK;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	NEED_INIT();
	return OK;
}

API CUresult cuCtxSetCurrent(xpCUctx *c)
{
	NEED_INIT();
	current = c;
	return OK;
}

API CUresult cuCtxSynchronize(void)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	return sticky;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	NEED_CTX();
	if (bytes == 0) {
		return ERR_INVALID_VALUE;
	}
	size_t rounded = (bytes + 255) & ~(size_t)255;
	void *m = aligned_alloc(256, rounded);
	if (m == nullptr) {
		return ERR_OUT_OF_MEMORY;
	}
	memset(m, 0xCD, rounded); // not zeroed, as on a GPU
	std::lock_guard<std::mutex> g(mu);
	allocs[(uintptr_t)m] = Alloc{bytes};
	allocated += bytes;
	*p = (CUdeviceptr)(uintptr_t)m;
	return OK;
}

API CUresult cuMemFree_v2(CUdeviceptr p)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	auto it = allocs.find((uintptr_t)p);
	if (it == allocs.end()) {
		fprintf(stderr, "fakecuda: cuMemFree of %#llx, not an allocation\n", p);
		return ERR_INVALID_VALUE;
	}
	allocated -= it->second.bytes;
	allocs.erase(it);
	free((void *)(uintptr_t)p);
	return OK;
}

static CUresult htod(CUdeviceptr dst, const void *src, size_t n)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	if (!in_device(dst, n, "copy to device")) {
		return ERR_INVALID_VALUE;
	}
	memcpy((void *)(uintptr_t)dst, src, n);
	return OK;
}

static CUresult dtoh(void *dst, CUdeviceptr src, size_t n)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	if (!in_device(src, n, "copy to host")) {
		return ERR_INVALID_VALUE;
	}
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return OK;
}

static CUresult dtod(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	if (!in_device(dst, n, "device copy (destination)") || !in_device(src, n, "device copy (source)")) {
		return ERR_INVALID_VALUE;
	}
	if (dst < src + n && src < dst + n) {
		fprintf(stderr, "fakecuda: device copy between overlapping ranges\n");
		return ERR_INVALID_VALUE;
	}
	memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return OK;
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return htod(dst, src, n); }
API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return dtoh(dst, src, n); }
API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return dtod(dst, src, n); }
API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, xpCUstream *) { return htod(dst, src, n); }
API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, xpCUstream *) { return dtoh(dst, src, n); }
API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, xpCUstream *) { return dtod(dst, src, n); }

static CUresult memset8(CUdeviceptr p, unsigned char v, size_t n)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	if (!in_device(p, n, "memset")) {
		return ERR_INVALID_VALUE;
	}
	memset((void *)(uintptr_t)p, v, n);
	return OK;
}

API CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) { return memset8(p, v, n); }
API CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, xpCUstream *) { return memset8(p, v, n); }

API CUresult cuMemAllocHost_v2(void **p, size_t bytes)
{
	NEED_CTX();
	void *m = malloc(bytes);
	if (m == nullptr) {
		return ERR_OUT_OF_MEMORY;
	}
	std::lock_guard<std::mutex> g(mu);
	host_allocs.insert((uintptr_t)m);
	*p = m;
	return OK;
}

API CUresult cuMemFreeHost(void *p)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	if (host_allocs.erase((uintptr_t)p) == 0) {
		return ERR_INVALID_VALUE;
	}
	free(p);
	return OK;
}

API CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	uintptr_t a = (uintptr_t)p;
	for (auto &r : registered) {
		if (a < r.first + r.second && r.first < a + bytes) {
			return ERR_HOST_MEMORY_ALREADY_REGISTERED;
		}
	}
	registered[a] = bytes;
	return OK;
}

API CUresult cuMemHostUnregister(void *p)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	if (registered.erase((uintptr_t)p) == 0) {
		return ERR_HOST_MEMORY_NOT_REGISTERED;
	}
	return OK;
}

API CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	*total = (size_t)16 << 30;
	*free_bytes = *total - allocated;
	return OK;
}

API CUresult cuStreamCreate(xpCUstream **s, unsigned int flags)
{
	NEED_CTX();
	*s = new xpCUstream();
	return OK;
}

API CUresult cuStreamDestroy_v2(xpCUstream *s)
{
	NEED_CTX();
	delete s;
	return OK;
}

API CUresult cuStreamSynchronize(xpCUstream *)
{
	NEED_CTX();
	std::lock_guard<std::mutex> g(mu);
	return sticky;
}

API CUresult cuStreamQuery(xpCUstream *)
{
	NEED_CTX();
	return OK;
}

API CUresult cuStreamWaitEvent(xpCUstream *, xpCUevent *e, unsigned int)
{
	NEED_CTX();
	return e ? OK : ERR_INVALID_HANDLE;
}

API CUresult cuEventCreate(xpCUevent **e, unsigned int flags)
{
	NEED_CTX();
	*e = new xpCUevent{std::chrono::steady_clock::now(), (flags & 2) == 0, false};
	return OK;
}

API CUresult cuEventDestroy_v2(xpCUevent *e)
{
	NEED_CTX();
	delete e;
	return OK;
}

API CUresult cuEventRecord(xpCUevent *e, xpCUstream *)
{
	NEED_CTX();
	e->t = std::chrono::steady_clock::now();
	e->recorded = true;
	return OK;
}

API CUresult cuEventQuery(xpCUevent *)
{
	NEED_CTX();
	return OK;
}

API CUresult cuEventSynchronize(xpCUevent *)
{
	NEED_CTX();
	return OK;
}

API CUresult cuEventElapsedTime(float *ms, xpCUevent *a, xpCUevent *b)
{
	NEED_CTX();
	if (!a->timing || !b->timing || !a->recorded || !b->recorded) {
		return ERR_INVALID_HANDLE;
	}
	*ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
	return OK;
}

API CUresult cuModuleLoadData(xpCUmodule **m, const void *image)
{
	NEED_CTX();
	const char *s = (const char *)image;
	if (s == nullptr || *s == 0) {
		return ERR_INVALID_PTX;
	}
	*m = new xpCUmodule{s, strncmp(s, "// fakenvrtc", 12) == 0, ""};
	const char *tag = strstr(s, "\n// variant-tag: ");
	if ((*m)->fake && tag != nullptr) {
		tag += strlen("\n// variant-tag: ");
		(*m)->tag = std::string(tag, strcspn(tag, "\n"));
	}
	return OK;
}

API CUresult cuModuleUnload(xpCUmodule *m)
{
	NEED_CTX();
	delete m;
	return OK;
}

API CUresult cuModuleGetFunction(xpCUfunction **f, xpCUmodule *m, const char *name)
{
	NEED_CTX();
	auto it = registry().end();
	if (!m->tag.empty()) {
		it = registry().find(std::string(name) + "|" + m->tag);
	}
	if (it == registry().end()) {
		it = registry().find(name);
	}
	if (it == registry().end()) {
		return ERR_NOT_FOUND;
	}
	if (!m->fake && m->ptx.find(".entry " + std::string(name) + "(") == std::string::npos) {
		fprintf(stderr, "fakecuda: the PTX has no entry %s\n", name);
		return ERR_NOT_FOUND;
	}
	*f = new xpCUfunction{&it->second, name};
	return OK;
}

// cuFuncSetAttribute knows the one attribute the backend sets, the dynamic
// shared memory a function may launch with, and refuses more than the
// device's opt-in maximum, as the driver does.
API CUresult cuFuncSetAttribute(xpCUfunction *f, int attrib, int value)
{
	NEED_CTX();
	if (f == nullptr) {
		return ERR_INVALID_HANDLE;
	}
	if (attrib != 8 || value < 0 || value > shared_optin) {
		return ERR_INVALID_VALUE;
	}
	f->max_dynamic_shared = value;
	return OK;
}

API CUresult cuLaunchKernel(xpCUfunction *f, unsigned int gx, unsigned int gy, unsigned int gz,
			    unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			    xpCUstream *, void **params, void **extra)
{
	NEED_CTX();
	if (f == nullptr || extra != nullptr) {
		return ERR_INVALID_VALUE;
	}
	if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || gy > 65535 || gz > 65535 ||
	    (unsigned long long)bx * by * bz > 1024 || bz > 64) {
		fprintf(stderr, "fakecuda: %s: invalid launch configuration (%u,%u,%u) x (%u,%u,%u)\n",
			f->name.c_str(), gx, gy, gz, bx, by, bz);
		return ERR_INVALID_VALUE;
	}
	if (shmem > (unsigned)f->max_dynamic_shared) {
		fprintf(stderr, "fakecuda: %s: %u bytes of dynamic shared memory, the function allows %d\n",
			f->name.c_str(), shmem, f->max_dynamic_shared);
		return ERR_INVALID_VALUE;
	}
	std::lock_guard<std::mutex> g(mu);
	if (sticky != OK) {
		return sticky;
	}
	gridDim = dim3{gx, gy, gz};
	blockDim = dim3{bx, by, bz};
	barrier_error = false;
	for (unsigned z = 0; z < gz; z++) {
		for (unsigned y = 0; y < gy; y++) {
			for (unsigned x = 0; x < gx; x++) {
				blockIdx = dim3{x, y, z};
				run_block(*f->entry, params);
			}
		}
	}
	if (barrier_error) {
		fprintf(stderr, "fakecuda: %s: threads diverged at a barrier\n", f->name.c_str());
		sticky = ERR_LAUNCH_FAILED;
	}
	return OK;
}

static const char *error_name(CUresult r)
{
	switch (r) {
	case OK: return "CUDA_SUCCESS";
	case ERR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case ERR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
	case ERR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
	case ERR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
	case ERR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
	case ERR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
	case ERR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
	case ERR_INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
	case ERR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
	case ERR_HOST_MEMORY_ALREADY_REGISTERED: return "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
	case ERR_HOST_MEMORY_NOT_REGISTERED: return "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED";
	case ERR_LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
	}
	return nullptr;
}

API CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = error_name(r);
	return *s ? OK : ERR_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult r, const char **s)
{
	*s = error_name(r) ? "fake driver error" : nullptr;
	if (r == ERR_NO_DEVICE) {
		*s = "no CUDA-capable device is detected";
	}
	return *s ? OK : ERR_INVALID_VALUE;
}

// ---- fake NVRTC ----

struct xpNvrtcProgram {
	std::string src, ptx;
};

API const char *nvrtcGetErrorString(int r)
{
	switch (r) {
	case 0: return "NVRTC_SUCCESS";
	case 5: return "NVRTC_ERROR_INVALID_OPTION";
	case 6: return "NVRTC_ERROR_COMPILATION";
	}
	return "NVRTC_ERROR (fake)";
}

API int nvrtcVersion(int *major, int *minor)
{
	*major = 12;
	*minor = 0;
	return 0;
}

API int nvrtcCreateProgram(xpNvrtcProgram **p, const char *src, const char *, int, const char *const *, const char *const *)
{
	*p = new xpNvrtcProgram{src, ""};
	return 0;
}

API int nvrtcCompileProgram(xpNvrtcProgram *p, int n, const char *const *opts)
{
	bool arch = false;
	for (int i = 0; i < n; i++) {
		if (strncmp(opts[i], "--gpu-architecture=compute_", 27) == 0) {
			arch = true;
		}
	}
	if (!arch) {
		return 5;
	}
	p->ptx = "// fakenvrtc\n";
	// A variant of a kernel of package kernels starts with the line
	// "// xpmpi kernel <tag>": the tag goes into the PTX, by which the
	// driver finds that variant's entry (XP_REGISTER_KEY).
	static const char prefix[] = "// xpmpi kernel ";
	if (p->src.compare(0, sizeof prefix - 1, prefix) == 0) {
		size_t end = p->src.find('\n');
		p->ptx += "// variant-tag: " + p->src.substr(sizeof prefix - 1, end == std::string::npos ? std::string::npos : end - (sizeof prefix - 1)) + "\n";
	}
	return p->src.empty() ? 6 : 0;
}

API int nvrtcGetProgramLogSize(xpNvrtcProgram *, size_t *n)
{
	*n = 1;
	return 0;
}

API int nvrtcGetProgramLog(xpNvrtcProgram *, char *log)
{
	*log = 0;
	return 0;
}

API int nvrtcGetPTXSize(xpNvrtcProgram *p, size_t *n)
{
	*n = p->ptx.size() + 1;
	return 0;
}

API int nvrtcGetPTX(xpNvrtcProgram *p, char *out)
{
	memcpy(out, p->ptx.c_str(), p->ptx.size() + 1);
	return 0;
}

API int nvrtcDestroyProgram(xpNvrtcProgram **p)
{
	delete *p;
	*p = nullptr;
	return 0;
}
