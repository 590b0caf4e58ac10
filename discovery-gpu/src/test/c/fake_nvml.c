/*
 * A fake libnvidia-ml.so.1 for nodeatlas tests: the NVML entry points the GPU source binds,
 * with the same versioned symbol names, prototypes, struct layouts and return codes as the
 * real library (nvml.h, NVML API Reference), answering from a key=value file instead of a
 * driver. The file is named by the environment variable FAKE_NVML_CONFIG and is read when the
 * first nvmlInit_v2/nvmlInitWithFlags call takes the reference count from 0 to 1, so a test can
 * point the variable elsewhere (setenv) between init/shutdown pairs. Keys: see README.md here.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
  NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_UNKNOWN = 999
};

#define MAX_GPUS 64
#define MAX_MIGS 8
#define MAX_ENTRIES 8192
#define MEMORY_V2_VERSION 0x02000028u /* sizeof(nvmlMemory_v2_t)=40 | 2<<24 (nvml.h NVML_STRUCT_VERSION) */

/* ------------------------------------------------------------------ configuration */

struct entry {
  char *key;
  char *value;
};

static struct entry entries[MAX_ENTRIES];
static int entry_count;
static int init_count;

static void free_config(void) {
  for (int i = 0; i < entry_count; i++) {
    free(entries[i].key);
    free(entries[i].value);
  }
  entry_count = 0;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
  return s;
}

/* Returns 0, or an NVML code saying why the configuration cannot be used. */
static nvmlReturn_t load_config(void) {
  free_config();
  const char *path = getenv("FAKE_NVML_CONFIG");
  if (path == NULL || *path == '\0') {
    fprintf(stderr, "fake-nvml: FAKE_NVML_CONFIG is not set; behaving as if no driver were loaded\n");
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "fake-nvml: cannot open %s: %s\n", path, strerror(errno));
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  char line[4096];
  int lineno = 0;
  nvmlReturn_t rc = NVML_SUCCESS;
  while (fgets(line, sizeof line, f) != NULL) {
    lineno++;
    char *s = trim(line);
    if (*s == '\0' || *s == '#') continue;
    char *eq = strchr(s, '=');
    if (eq == NULL || entry_count == MAX_ENTRIES) {
      fprintf(stderr, "fake-nvml: %s:%d: expected key=value\n", path, lineno);
      rc = NVML_ERROR_UNKNOWN;
      break;
    }
    *eq = '\0';
    entries[entry_count].key = strdup(trim(s));
    entries[entry_count].value = strdup(trim(eq + 1));
    entry_count++;
  }
  fclose(f);
  if (rc != NVML_SUCCESS) free_config();
  return rc;
}

/* The last value given for the formatted key, or NULL. */
static const char *cfg(const char *fmt, ...) {
  char key[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(key, sizeof key, fmt, ap);
  va_end(ap);
  for (int i = entry_count - 1; i >= 0; i--) {
    if (strcmp(entries[i].key, key) == 0) return entries[i].value;
  }
  return NULL;
}

static int parse_ull(const char *v, unsigned long long *out) {
  if (v == NULL || *v == '\0') return 0;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 0);
  if (errno != 0 || *end != '\0') return 0;
  *out = x;
  return 1;
}

static unsigned long long cfg_ull(unsigned long long dflt, const char *fmt, unsigned a, unsigned b, int two) {
  char key[256];
  if (two) snprintf(key, sizeof key, fmt, a, b); else snprintf(key, sizeof key, fmt, a);
  unsigned long long x;
  return parse_ull(cfg("%s", key), &x) ? x : dflt;
}

/* ------------------------------------------------------------------ handles */

struct fake_handle {
  int is_mig;
  unsigned gpu;
  unsigned mig; /* position in device.<gpu>.mig.<mig>.* */
};

static struct fake_handle gpu_handles[MAX_GPUS];
static struct fake_handle mig_handles[MAX_GPUS][MAX_MIGS];

typedef struct fake_handle *nvmlDevice_t;

static unsigned gpu_count(void) {
  unsigned long long n = cfg_ull(0, "device.count", 0, 0, 0);
  return n > MAX_GPUS ? MAX_GPUS : (unsigned)n;
}

static unsigned mig_count(unsigned gpu) {
  unsigned long long n = cfg_ull(0, "device.%u.mig.count", gpu, 0, 0);
  return n > MAX_MIGS ? MAX_MIGS : (unsigned)n;
}

static int valid_handle(nvmlDevice_t d) {
  if (d == NULL) return 0;
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    if (d == &gpu_handles[g]) return g < gpu_count();
    for (unsigned m = 0; m < MAX_MIGS; m++) {
      if (d == &mig_handles[g][m]) return g < gpu_count() && m < mig_count(g);
    }
  }
  return 0;
}

/* An injected return code for fn, per MIG device, per GPU or for the whole library (first found wins). */
static nvmlReturn_t injected(nvmlDevice_t d, const char *fn) {
  unsigned long long code;
  if (d != NULL && d->is_mig && parse_ull(cfg("device.%u.mig.%u.error.%s", d->gpu, d->mig, fn), &code)) return (nvmlReturn_t)code;
  if (d != NULL && parse_ull(cfg("device.%u.error.%s", d->gpu, fn), &code)) return (nvmlReturn_t)code;
  if (parse_ull(cfg("error.%s", fn), &code)) return (nvmlReturn_t)code;
  return NVML_SUCCESS;
}

/* Common checks of every device call: initialised, known handle, GPU not lost, no injected error. */
/* What the event file said about a GPU since init: 0 nothing (the config's device.<i>.lost decides), 1 lost, 2 back. */
static int runtime_lost[MAX_GPUS];

static int is_lost(unsigned gpu) {
  if (runtime_lost[gpu] != 0) return runtime_lost[gpu] == 1;
  return cfg_ull(0, "device.%u.lost", gpu, 0, 0) != 0;
}

static nvmlReturn_t enter(nvmlDevice_t d, const char *fn) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid_handle(d)) return NVML_ERROR_INVALID_ARGUMENT;
  nvmlReturn_t rc = injected(d, fn);
  if (rc != NVML_SUCCESS) return rc;
  if (is_lost(d->gpu)) return NVML_ERROR_GPU_IS_LOST;
  return NVML_SUCCESS;
}

static nvmlReturn_t enter_system(const char *fn) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  return injected(NULL, fn);
}

static nvmlReturn_t copy_string(char *buf, unsigned int length, const char *value) {
  if (value == NULL) return NVML_ERROR_NOT_SUPPORTED;
  if (buf == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(value) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(buf, value, strlen(value) + 1);
  return NVML_SUCCESS;
}

/* A per-device value: device.<g>.mig.<m>.<name> for MIG handles, device.<g>.<name> otherwise. */
static const char *device_value(nvmlDevice_t d, const char *name) {
  return d->is_mig ? cfg("device.%u.mig.%u.%s", d->gpu, d->mig, name) : cfg("device.%u.%s", d->gpu, name);
}

static nvmlReturn_t device_uint(nvmlDevice_t d, const char *fn, const char *name, unsigned int *out) {
  nvmlReturn_t rc = enter(d, fn);
  if (rc != NVML_SUCCESS) return rc;
  if (out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long v;
  if (!parse_ull(device_value(d, name), &v)) return NVML_ERROR_NOT_SUPPORTED;
  *out = (unsigned int)v;
  return NVML_SUCCESS;
}

/* ------------------------------------------------------------------ init and system */

static void reset_events(void);
static void reset_instances(void);
static void load_instances(void);
static void seed_instances(void);

/* NVML is thread-safe: the agent's discovery and its health watch init and shut down from different
 * threads, so the reference count changes under one lock (a lost update would free the config under
 * the other thread's feet). */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static nvmlReturn_t do_init_locked(void);

static nvmlReturn_t do_init(void) {
  pthread_mutex_lock(&init_lock);
  nvmlReturn_t rc = do_init_locked();
  pthread_mutex_unlock(&init_lock);
  return rc;
}

static nvmlReturn_t do_init_locked(void) {
  if (init_count > 0) {
    init_count++;
    return NVML_SUCCESS;
  }
  nvmlReturn_t rc = load_config();
  if (rc != NVML_SUCCESS) return rc;
  unsigned long long forced;
  if (parse_ull(cfg("init.error"), &forced) && forced != 0) {
    free_config();
    return (nvmlReturn_t)forced;
  }
  reset_events();
  reset_instances();
  load_instances();
  seed_instances();
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    runtime_lost[g] = 0;
    gpu_handles[g] = (struct fake_handle){0, g, 0};
    for (unsigned m = 0; m < MAX_MIGS; m++) mig_handles[g][m] = (struct fake_handle){1, g, m};
  }
  init_count = 1;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit_v2(void) { return do_init(); }

EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
  (void)flags;
  return do_init();
}

EXPORT nvmlReturn_t nvmlShutdown(void) {
  pthread_mutex_lock(&init_lock);
  nvmlReturn_t rc = NVML_SUCCESS;
  if (init_count == 0) {
    rc = NVML_ERROR_UNINITIALIZED;
  } else if (--init_count == 0) {
    free_config();
  }
  pthread_mutex_unlock(&init_lock);
  return rc;
}

/* Test hook, not an NVML symbol: how many nvmlInit calls are not yet matched by nvmlShutdown. */
EXPORT int fakeNvmlInitCount(void) { return init_count; }

EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 5: return "Already Initialized";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 8: return "Insufficient External Power";
    case 9: return "Driver Not Loaded";
    case 10: return "Timeout";
    case 11: return "Interrupt request issue";
    case 12: return "NVML Shared Library Not Found";
    case 13: return "Function Not Found";
    case 14: return "Corrupted infoROM";
    case 15: return "GPU is lost";
    case 16: return "GPU requires restart";
    case 17: return "The operating system has blocked the request.";
    case 18: return "RM has detected an NVML/RM version mismatch.";
    case 19: return "In use by another client";
    case 20: return "Insufficient Memory";
    case 21: return "No data";
    case 25: return "Argument version mismatch";
    case 28: return "GPU not found";
    default: return "Unknown Error";
  }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  nvmlReturn_t rc = enter_system("nvmlSystemGetDriverVersion");
  return rc != NVML_SUCCESS ? rc : copy_string(version, length, cfg("driver.version"));
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
  nvmlReturn_t rc = enter_system("nvmlSystemGetNVMLVersion");
  return rc != NVML_SUCCESS ? rc : copy_string(version, length, cfg("nvml.version"));
}

static nvmlReturn_t cuda_version(const char *fn, int *out) {
  nvmlReturn_t rc = enter_system(fn);
  if (rc != NVML_SUCCESS) return rc;
  if (out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long v;
  if (!parse_ull(cfg("cuda.driver.version"), &v)) return NVML_ERROR_NOT_SUPPORTED;
  *out = (int)v;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return cuda_version("nvmlSystemGetCudaDriverVersion", v); }
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return cuda_version("nvmlSystemGetCudaDriverVersion_v2", v); }

/* ------------------------------------------------------------------ enumeration and identity */

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
  nvmlReturn_t rc = enter_system("nvmlDeviceGetCount_v2");
  if (rc != NVML_SUCCESS) return rc;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *count = gpu_count();
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (device == NULL || index >= gpu_count()) return NVML_ERROR_INVALID_ARGUMENT;
  nvmlReturn_t rc = injected(&gpu_handles[index], "nvmlDeviceGetHandleByIndex_v2");
  if (rc != NVML_SUCCESS) return rc;
  *device = &gpu_handles[index];
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t d, unsigned int *index) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetIndex");
  if (rc != NVML_SUCCESS) return rc;
  if (index == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *index = d->is_mig ? (unsigned)cfg_ull(d->mig, "device.%u.mig.%u.index", d->gpu, d->mig, 1) : d->gpu;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor) {
  if (valid_handle(d) && d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  return device_uint(d, "nvmlDeviceGetMinorNumber", "minor", minor);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetUUID");
  return rc != NVML_SUCCESS ? rc : copy_string(uuid, length, device_value(d, "uuid"));
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetName");
  if (rc != NVML_SUCCESS) return rc;
  const char *gpu_name = cfg("device.%u.name", d->gpu);
  if (!d->is_mig || gpu_name == NULL) return copy_string(name, length, gpu_name);
  /* A MIG handle is named after its parent and profile, e.g. "NVIDIA H100 80GB HBM3 MIG 1g.10gb". */
  const char *profile = device_value(d, "profile");
  char mig_name[256];
  snprintf(mig_name, sizeof mig_name, profile == NULL ? "%s" : "%s MIG %s", gpu_name, profile);
  return copy_string(name, length, mig_name);
}

EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t d, unsigned int *type) {
  return device_uint(d, "nvmlDeviceGetBrand", "brand", type);
}

EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t d, unsigned int *arch) {
  return device_uint(d, "nvmlDeviceGetArchitecture", "architecture", arch);
}

EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetCudaComputeCapability");
  if (rc != NVML_SUCCESS) return rc;
  if (major == NULL || minor == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  const char *cc = cfg("device.%u.cuda.cc", d->gpu);
  int a, b;
  if (cc == NULL || sscanf(cc, "%d.%d", &a, &b) != 2) return NVML_ERROR_NOT_SUPPORTED;
  *major = a;
  *minor = b;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *serial, unsigned int length) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetSerial");
  return rc != NVML_SUCCESS ? rc : copy_string(serial, length, cfg("device.%u.serial", d->gpu));
}

EXPORT nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t d, char *part, unsigned int length) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetBoardPartNumber");
  return rc != NVML_SUCCESS ? rc : copy_string(part, length, cfg("device.%u.board_part_number", d->gpu));
}

EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t d, char *version, unsigned int length) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetVbiosVersion");
  return rc != NVML_SUCCESS ? rc : copy_string(version, length, cfg("device.%u.vbios", d->gpu));
}

/* ------------------------------------------------------------------ memory and PCI */

typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
  unsigned int version;
  unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t layout");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t layout");

static nvmlReturn_t memory_values(nvmlDevice_t d, unsigned long long *total, unsigned long long *reserved,
                                  unsigned long long *used) {
  if (!parse_ull(device_value(d, "memory.total"), total)) return NVML_ERROR_NOT_SUPPORTED;
  if (!parse_ull(device_value(d, "memory.reserved"), reserved)) *reserved = 0;
  if (!parse_ull(device_value(d, "memory.used"), used)) *used = 0;
  if (*reserved + *used > *total) return NVML_ERROR_UNKNOWN;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *memory) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetMemoryInfo");
  if (rc != NVML_SUCCESS) return rc;
  if (memory == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long total, reserved, used;
  if ((rc = memory_values(d, &total, &reserved, &used)) != NVML_SUCCESS) return rc;
  memory->total = total;
  memory->used = used + reserved; /* v1 has no reserved field: reserved memory counts as used */
  memory->free = total - used - reserved;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *memory) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetMemoryInfo_v2");
  if (rc != NVML_SUCCESS) return rc;
  if (memory == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (memory->version != MEMORY_V2_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  unsigned long long total, reserved, used;
  if ((rc = memory_values(d, &total, &reserved, &used)) != NVML_SUCCESS) return rc;
  memory->total = total;
  memory->reserved = reserved;
  memory->used = used;
  memory->free = total - used - reserved;
  return NVML_SUCCESS;
}

typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetPciInfo_v3");
  if (rc != NVML_SUCCESS) return rc;
  if (pci == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  const char *bus_id = cfg("device.%u.pci.busid", d->gpu);
  unsigned domain, bus, dev, fn;
  if (bus_id == NULL) return NVML_ERROR_NOT_SUPPORTED;
  if (sscanf(bus_id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return NVML_ERROR_UNKNOWN;
  memset(pci, 0, sizeof *pci);
  pci->domain = domain;
  pci->bus = bus;
  pci->device = dev;
  pci->pciDeviceId = (unsigned)cfg_ull(0, "device.%u.pci.device_id", d->gpu, 0, 0);
  pci->pciSubSystemId = (unsigned)cfg_ull(0, "device.%u.pci.subsystem_id", d->gpu, 0, 0);
  /* The real library prints upper-case hex and always function 0 (nvmlPciInfo_t busId). */
  snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain, bus, dev);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", domain & 0xffff, bus, dev);
  return NVML_SUCCESS;
}

/* ------------------------------------------------------------------ MIG */

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetMigMode");
  if (rc != NVML_SUCCESS) return rc;
  if (current == NULL || pending == NULL || d->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned long long mode;
  if (!parse_ull(cfg("device.%u.mig.mode", d->gpu), &mode)) return NVML_ERROR_NOT_SUPPORTED;
  *current = (unsigned)mode;
  *pending = (unsigned)cfg_ull(mode, "device.%u.mig.pending", d->gpu, 0, 0);
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetMaxMigDeviceCount");
  if (rc != NVML_SUCCESS) return rc;
  if (count == NULL || d->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  int enabled = cfg_ull(0, "device.%u.mig.mode", d->gpu, 0, 0) == 1;
  *count = enabled ? (unsigned)cfg_ull(7, "device.%u.mig.max", d->gpu, 0, 0) : 0;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t *mig) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetMigDeviceHandleByIndex");
  if (rc != NVML_SUCCESS) return rc;
  if (mig == NULL || d->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (cfg_ull(0, "device.%u.mig.mode", d->gpu, 0, 0) != 1) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned m = 0; m < mig_count(d->gpu); m++) {
    /* Slot indexes may have holes (device.<g>.mig.<m>.index); an empty slot is NOT_FOUND, as on hardware. */
    if (cfg_ull(m, "device.%u.mig.%u.index", d->gpu, m, 1) == index) {
      rc = injected(&mig_handles[d->gpu][m], "nvmlDeviceGetMigDeviceHandleByIndex");
      if (rc != NVML_SUCCESS) return rc;
      *mig = &mig_handles[d->gpu][m];
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t d, unsigned int *is_mig) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceIsMigDeviceHandle");
  if (rc != NVML_SUCCESS) return rc;
  if (is_mig == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *is_mig = (unsigned)d->is_mig;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t *device) {
  nvmlReturn_t rc = enter(mig, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle");
  if (rc != NVML_SUCCESS) return rc;
  if (device == NULL || !mig->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &gpu_handles[mig->gpu];
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
  if (valid_handle(d) && !d->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  return device_uint(d, "nvmlDeviceGetGpuInstanceId", "gi", id);
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
  if (valid_handle(d) && !d->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  return device_uint(d, "nvmlDeviceGetComputeInstanceId", "ci", id);
}

typedef struct {
  unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount,
      sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
  unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

_Static_assert(sizeof(nvmlDeviceAttributes_t) == 40, "nvmlDeviceAttributes_t layout");

EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetAttributes_v2");
  if (rc != NVML_SUCCESS) return rc;
  if (a == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (!d->is_mig) return NVML_ERROR_NOT_SUPPORTED; /* real NVML fills it for MIG handles only */
  unsigned g = d->gpu, m = d->mig;
  a->multiprocessorCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.sm_count", g, m, 1);
  a->sharedCopyEngineCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.ce_count", g, m, 1);
  a->sharedDecoderCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.dec_count", g, m, 1);
  a->sharedEncoderCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.enc_count", g, m, 1);
  a->sharedJpegCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.jpg_count", g, m, 1);
  a->sharedOfaCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.ofa_count", g, m, 1);
  a->gpuInstanceSliceCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.gi_slices", g, m, 1);
  a->computeInstanceSliceCount = (unsigned)cfg_ull(0, "device.%u.mig.%u.ci_slices", g, m, 1);
  a->memorySizeMB = cfg_ull(0, "device.%u.mig.%u.memory.total", g, m, 1) >> 20;
  return NVML_SUCCESS;
}

/* ---- MIG GPU instance profiles, placements and instances (NVML API Reference, "Multi Instance GPU
 * Management", nvmlMultiInstanceGPU group). Profiles come from device.<g>.mig.profile.<index>.* keys,
 * answered whether MIG mode is on or off, as a real H200 does (docs/design/gpu-mig-profiles-h200.md);
 * creating instances needs MIG mode on. Instances live in this process until the last nvmlShutdown. */

#define PROFILE_INDEX_COUNT 17 /* NVML_GPU_INSTANCE_PROFILE_COUNT in nvml.h: indexes 0..16 */
#define MAX_PLACEMENTS 16
#define MAX_GIS 16
#define MAX_CIS 8
#define GI_PROFILE_INFO_SIZE 152u
#define GI_PROFILE_INFO_V2 (GI_PROFILE_INFO_SIZE | (2u << 24)) /* nvmlGpuInstanceProfileInfo_v2 */
#define GI_PROFILE_INFO_V3 (GI_PROFILE_INFO_SIZE | (3u << 24)) /* nvmlGpuInstanceProfileInfo_v3 */
#define CI_PROFILE_INFO_SIZE 136u
#define CI_PROFILE_INFO_V2 (CI_PROFILE_INFO_SIZE | (2u << 24)) /* nvmlComputeInstanceProfileInfo_v2 */

typedef struct {
  unsigned int start, size;
} nvmlGpuInstancePlacement_t;

typedef struct {
  unsigned int id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount, decoderCount,
      encoderCount, jpegCount, ofaCount;
  unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;

typedef struct {
  unsigned int version, id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
      decoderCount, encoderCount, jpegCount, ofaCount;
  unsigned long long memorySizeMB;
  char name[96];
} nvmlGpuInstanceProfileInfo_v2_t;

typedef struct {
  unsigned int version, id, sliceCount, instanceCount, multiprocessorCount, copyEngineCount, decoderCount,
      encoderCount, jpegCount, ofaCount;
  unsigned long long memorySizeMB;
  char name[96];
  unsigned int capabilities;
} nvmlGpuInstanceProfileInfo_v3_t;

typedef struct {
  unsigned int version, id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
      sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount;
  char name[96];
} nvmlComputeInstanceProfileInfo_v2_t;

_Static_assert(sizeof(nvmlGpuInstancePlacement_t) == 8, "nvmlGpuInstancePlacement_t layout");
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_t) == 48, "nvmlGpuInstanceProfileInfo_t layout");
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v2_t) == GI_PROFILE_INFO_SIZE, "nvmlGpuInstanceProfileInfo_v2_t");
_Static_assert(sizeof(nvmlGpuInstanceProfileInfo_v3_t) == GI_PROFILE_INFO_SIZE, "nvmlGpuInstanceProfileInfo_v3_t");
_Static_assert(sizeof(nvmlComputeInstanceProfileInfo_v2_t) == CI_PROFILE_INFO_SIZE, "nvmlComputeInstanceProfileInfo_v2_t");

struct fake_profile {
  unsigned id, slices, instances, sm, ce, dec, enc, jpeg, ofa;
  unsigned long long memory_mib;
  const char *name;
  nvmlGpuInstancePlacement_t placements[MAX_PLACEMENTS];
  unsigned placement_count;
};

struct fake_ci {
  int used;
  unsigned profile, slices;
};

struct fake_gi {
  int used;
  unsigned gpu, id, profile_id, start, size, slices, ofa;
  struct fake_ci cis[MAX_CIS];
};

typedef struct fake_gi *nvmlGpuInstance_t;
typedef struct fake_ci *nvmlComputeInstance_t;

static struct fake_gi instances[MAX_GPUS][MAX_GIS];

static void reset_instances(void) { memset(instances, 0, sizeof instances); }

/* mig.state=<file>: the instances outlive the process, as the driver's do (a restarted agent, a killed
 * one, finds what it created). Lines "gi <gpu> <slot> <profile id> <start> <size> <slices> <ofa>" and
 * "ci <gpu> <slot> <ci slot> <ci profile> <slices>"; rewritten (temporary file and rename) after every
 * create and destroy, read by the init that reads the configuration. */
static void load_instances(void) {
  const char *path = cfg("mig.state");
  if (path == NULL) return;
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned g, i, a, b, c, d, e;
    if (sscanf(line, "gi %u %u %u %u %u %u %u", &g, &i, &a, &b, &c, &d, &e) == 7 && g < MAX_GPUS && i < MAX_GIS) {
      instances[g][i] = (struct fake_gi){1, g, i + 1, a, b, c, d, e, {{0}}};
    } else if (sscanf(line, "ci %u %u %u %u %u", &g, &i, &a, &b, &c) == 5 && g < MAX_GPUS && i < MAX_GIS &&
               a < MAX_CIS && instances[g][i].used) {
      instances[g][i].cis[a] = (struct fake_ci){1, b, c};
    }
  }
  fclose(f);
}

static int profile_by_id(unsigned g, unsigned id, struct fake_profile *p);
static int fits(unsigned g, const struct fake_profile *p, nvmlGpuInstancePlacement_t pl);

/* device.<g>.mig.gi.<k>=<profile id>@<start>:<size> (k 0-7): GPU instances an operator made before the process
 * started (nvidia-smi mig -cgi), there at every init unless one of that profile and placement already is (read
 * from mig.state); one that does not fit is left out. Read by nvmlDeviceGetGpuInstances and
 * nvmlGpuInstanceGetInfo like any other. */
static void seed_instances(void) {
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    for (unsigned k = 0; k < 8; k++) {
      const char *v = cfg("device.%u.mig.gi.%u", g, k);
      unsigned id, start, size;
      struct fake_profile p;
      if (v == NULL || sscanf(v, "%u@%u:%u", &id, &start, &size) != 3 || !profile_by_id(g, id, &p)) continue;
      int present = 0;
      for (unsigned i = 0; i < MAX_GIS; i++) {
        const struct fake_gi *gi = &instances[g][i];
        present |= gi->used && gi->profile_id == id && gi->start == start && gi->size == size;
      }
      nvmlGpuInstancePlacement_t pl = {start, size};
      if (present || !fits(g, &p, pl)) continue;
      for (unsigned i = 0; i < MAX_GIS; i++) {
        if (instances[g][i].used) continue;
        instances[g][i] = (struct fake_gi){1, g, i + 1, p.id, start, size, p.slices, p.ofa, {{0}}};
        break;
      }
    }
  }
}

/* mig.kill_after=<function>: the process dies by SIGKILL right after that call succeeded (a kill -9 at
 * exactly that point, for crash tests). */
static void maybe_die(const char *fn) {
  const char *when = cfg("mig.kill_after");
  if (when != NULL && strcmp(when, fn) == 0) raise(SIGKILL);
}

static void save_instances(void) {
  const char *path = cfg("mig.state");
  if (path == NULL) return;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (f == NULL) return;
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    for (unsigned i = 0; i < MAX_GIS; i++) {
      const struct fake_gi *gi = &instances[g][i];
      if (!gi->used) continue;
      fprintf(f, "gi %u %u %u %u %u %u %u\n", g, i, gi->profile_id, gi->start, gi->size, gi->slices, gi->ofa);
      for (unsigned c = 0; c < MAX_CIS; c++) {
        if (gi->cis[c].used) fprintf(f, "ci %u %u %u %u %u\n", g, i, c, gi->cis[c].profile, gi->cis[c].slices);
      }
    }
  }
  if (fclose(f) == 0) rename(tmp, path);
}

/* device.<g>.mig.profile.<index>.{id,name,slices,instances,sm,ce,dec,enc,jpeg,ofa,memory_mib,placements};
 * placements is "start:size,start:size,...". Returns 0 when the GPU has no such profile. */
static int read_profile(unsigned g, unsigned index, struct fake_profile *p) {
  char key[96];
  memset(p, 0, sizeof *p);
  unsigned long long id;
  snprintf(key, sizeof key, "device.%u.mig.profile.%u.id", g, index);
  if (!parse_ull(cfg("%s", key), &id)) return 0;
  p->id = (unsigned)id;
#define PROFILE_FIELD(field, name) \
  snprintf(key, sizeof key, "device.%u.mig.profile.%u." name, g, index); \
  p->field = (unsigned)(parse_ull(cfg("%s", key), &id) ? id : 0);
  PROFILE_FIELD(slices, "slices")
  PROFILE_FIELD(instances, "instances")
  PROFILE_FIELD(sm, "sm")
  PROFILE_FIELD(ce, "ce")
  PROFILE_FIELD(dec, "dec")
  PROFILE_FIELD(enc, "enc")
  PROFILE_FIELD(jpeg, "jpeg")
  PROFILE_FIELD(ofa, "ofa")
#undef PROFILE_FIELD
  snprintf(key, sizeof key, "device.%u.mig.profile.%u.memory_mib", g, index);
  p->memory_mib = parse_ull(cfg("%s", key), &id) ? id : 0;
  snprintf(key, sizeof key, "device.%u.mig.profile.%u.name", g, index);
  p->name = cfg("%s", key);
  snprintf(key, sizeof key, "device.%u.mig.profile.%u.placements", g, index);
  const char *list = cfg("%s", key);
  while (list != NULL && *list != '\0' && p->placement_count < MAX_PLACEMENTS) {
    unsigned start, size;
    int used = 0;
    if (sscanf(list, "%u:%u%n", &start, &size, &used) != 2) break;
    p->placements[p->placement_count++] = (nvmlGpuInstancePlacement_t){start, size};
    list += used;
    if (*list == ',') list++;
  }
  return 1;
}

/* The profile with this id (what placements and creation take), or 0. */
static int profile_by_id(unsigned g, unsigned id, struct fake_profile *p) {
  for (unsigned i = 0; i < PROFILE_INDEX_COUNT; i++) {
    if (read_profile(g, i, p) && p->id == id) return 1;
  }
  return 0;
}

/* The whole GPU's compute slices and OFAs: the largest any profile takes. */
static void gpu_totals(unsigned g, unsigned *slices, unsigned *ofa) {
  struct fake_profile p;
  *slices = 0;
  *ofa = 0;
  for (unsigned i = 0; i < PROFILE_INDEX_COUNT; i++) {
    if (!read_profile(g, i, &p)) continue;
    if (p.slices > *slices) *slices = p.slices;
    if (p.ofa > *ofa) *ofa = p.ofa;
  }
}

static int mig_capable(unsigned g) { return cfg("device.%u.mig.mode", g) != NULL; }
static int mig_enabled(unsigned g) { return cfg_ull(0, "device.%u.mig.mode", g, 0, 0) == 1; }

/* Common checks of a profile call on a full GPU: MIG-capable, index in range. */
static nvmlReturn_t enter_gpu_mig(nvmlDevice_t d, const char *fn) {
  nvmlReturn_t rc = enter(d, fn);
  if (rc != NVML_SUCCESS) return rc;
  if (d->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (!mig_capable(d->gpu)) return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

static nvmlReturn_t profile_at(nvmlDevice_t d, const char *fn, unsigned index, struct fake_profile *p) {
  nvmlReturn_t rc = enter_gpu_mig(d, fn);
  if (rc != NVML_SUCCESS) return rc;
  if (index >= PROFILE_INDEX_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
  return read_profile(d->gpu, index, p) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t d, unsigned int index,
                                                        nvmlGpuInstanceProfileInfo_t *info) {
  struct fake_profile p;
  nvmlReturn_t rc = profile_at(d, "nvmlDeviceGetGpuInstanceProfileInfo", index, &p);
  if (rc != NVML_SUCCESS) return rc;
  if (info == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *info = (nvmlGpuInstanceProfileInfo_t){p.id, 0, p.slices, p.instances, p.sm, p.ce, p.dec, p.enc, p.jpeg, p.ofa,
                                         p.memory_mib};
  return NVML_SUCCESS;
}

/* The caller sets info->version to nvmlGpuInstanceProfileInfo_v2 or _v3 (nvmlDeviceGetGpuInstanceProfileInfoV). */
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t d, unsigned int index, void *info) {
  struct fake_profile p;
  nvmlReturn_t rc = profile_at(d, "nvmlDeviceGetGpuInstanceProfileInfoV", index, &p);
  if (rc != NVML_SUCCESS) return rc;
  if (info == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned version = *(unsigned *)info;
  const char *name = p.name == NULL ? "" : p.name;
  if (version == GI_PROFILE_INFO_V2) {
    nvmlGpuInstanceProfileInfo_v2_t *v2 = info;
    memset(v2, 0, sizeof *v2);
    *v2 = (nvmlGpuInstanceProfileInfo_v2_t){version, p.id, 0, p.slices, p.instances, p.sm, p.ce, p.dec, p.enc,
                                            p.jpeg, p.ofa, p.memory_mib, {0}};
    snprintf(v2->name, sizeof v2->name, "%s", name);
    return NVML_SUCCESS;
  }
  if (version == GI_PROFILE_INFO_V3) {
    nvmlGpuInstanceProfileInfo_v3_t *v3 = info;
    memset(v3, 0, sizeof *v3);
    *v3 = (nvmlGpuInstanceProfileInfo_v3_t){version, p.id, p.slices, p.instances, p.sm, p.ce, p.dec, p.enc,
                                            p.jpeg, p.ofa, p.memory_mib, {0}, 0};
    snprintf(v3->name, sizeof v3->name, "%s", name);
    return NVML_SUCCESS;
  }
  return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

/* placements NULL: *count is set to how many there are; else *count must be large enough. */
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t d, unsigned int profileId,
                                                                  nvmlGpuInstancePlacement_t *placements,
                                                                  unsigned int *count) {
  nvmlReturn_t rc = enter_gpu_mig(d, "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
  if (rc != NVML_SUCCESS) return rc;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct fake_profile p;
  if (!profile_by_id(d->gpu, profileId, &p)) return NVML_ERROR_INVALID_ARGUMENT;
  if (placements == NULL) {
    *count = p.placement_count;
    return NVML_SUCCESS;
  }
  if (*count < p.placement_count) {
    *count = p.placement_count;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  memcpy(placements, p.placements, p.placement_count * sizeof *placements);
  *count = p.placement_count;
  return NVML_SUCCESS;
}

static int overlaps(unsigned a, unsigned an, unsigned b, unsigned bn) { return a < b + bn && b < a + an; }

/* Whether a GPU instance of p fits at pl next to the instances that exist: no shared memory slice,
 * enough compute slices and OFAs, and fewer than p.instances of this profile. */
static int fits(unsigned g, const struct fake_profile *p, nvmlGpuInstancePlacement_t pl) {
  unsigned total_slices, total_ofa, used_slices = 0, used_ofa = 0, same = 0;
  gpu_totals(g, &total_slices, &total_ofa);
  for (unsigned i = 0; i < MAX_GIS; i++) {
    const struct fake_gi *gi = &instances[g][i];
    if (!gi->used) continue;
    if (overlaps(gi->start, gi->size, pl.start, pl.size)) return 0;
    used_slices += gi->slices;
    used_ofa += gi->ofa;
    if (gi->profile_id == p->id) same++;
  }
  return used_slices + p->slices <= total_slices && used_ofa + p->ofa <= total_ofa && same < p->instances;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t d, unsigned int profileId,
                                                              unsigned int *count) {
  nvmlReturn_t rc = enter_gpu_mig(d, "nvmlDeviceGetGpuInstanceRemainingCapacity");
  if (rc != NVML_SUCCESS) return rc;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct fake_profile p;
  if (!profile_by_id(d->gpu, profileId, &p)) return NVML_ERROR_INVALID_ARGUMENT;
  /* How many more could be created one after another, each at its first free placement. */
  struct fake_gi saved[MAX_GIS];
  memcpy(saved, instances[d->gpu], sizeof saved);
  unsigned n = 0;
  for (unsigned k = 0; k < p.placement_count; k++) {
    if (!fits(d->gpu, &p, p.placements[k])) continue;
    for (unsigned i = 0; i < MAX_GIS; i++) {
      if (!instances[d->gpu][i].used) {
        instances[d->gpu][i] = (struct fake_gi){1, d->gpu, 0, p.id, p.placements[k].start, p.placements[k].size,
                                                p.slices, p.ofa, {{0}}};
        n++;
        break;
      }
    }
  }
  memcpy(instances[d->gpu], saved, sizeof saved);
  *count = n;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t d, unsigned int profileId,
                                                             const nvmlGpuInstancePlacement_t *placement,
                                                             nvmlGpuInstance_t *gpuInstance) {
  nvmlReturn_t rc = enter_gpu_mig(d, "nvmlDeviceCreateGpuInstanceWithPlacement");
  if (rc != NVML_SUCCESS) return rc;
  if (!mig_enabled(d->gpu)) return NVML_ERROR_NOT_SUPPORTED; /* "device doesn't have MIG mode enabled" */
  if (placement == NULL || gpuInstance == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct fake_profile p;
  if (!profile_by_id(d->gpu, profileId, &p)) return NVML_ERROR_INVALID_ARGUMENT;
  int possible = 0;
  for (unsigned k = 0; k < p.placement_count; k++) {
    possible |= p.placements[k].start == placement->start && p.placements[k].size == placement->size;
  }
  if (!possible) return NVML_ERROR_INVALID_ARGUMENT;
  if (!fits(d->gpu, &p, *placement)) return NVML_ERROR_INSUFFICIENT_RESOURCES;
  for (unsigned i = 0; i < MAX_GIS; i++) {
    struct fake_gi *gi = &instances[d->gpu][i];
    if (gi->used) continue;
    /* GPU instance ids as the driver numbers them are opaque to callers; here the slot plus one. */
    *gi = (struct fake_gi){1, d->gpu, i + 1, p.id, placement->start, placement->size, p.slices, p.ofa, {{0}}};
    *gpuInstance = gi;
    save_instances();
    maybe_die("nvmlDeviceCreateGpuInstanceWithPlacement");
    return NVML_SUCCESS;
  }
  return NVML_ERROR_INSUFFICIENT_RESOURCES;
}

static int valid_gi(nvmlGpuInstance_t gi) {
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    for (unsigned i = 0; i < MAX_GIS; i++) {
      if (gi == &instances[g][i]) return gi->used;
    }
  }
  return 0;
}

static nvmlReturn_t enter_gi(nvmlGpuInstance_t gi, const char *fn) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (!valid_gi(gi)) return NVML_ERROR_INVALID_ARGUMENT;
  nvmlReturn_t rc = injected(&gpu_handles[gi->gpu], fn);
  if (rc != NVML_SUCCESS) return rc;
  return is_lost(gi->gpu) ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}

/* NVML_ERROR_IN_USE while compute instances exist on it (nvmlGpuInstanceDestroy). */
EXPORT nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gi) {
  nvmlReturn_t rc = enter_gi(gi, "nvmlGpuInstanceDestroy");
  if (rc != NVML_SUCCESS) return rc;
  for (unsigned c = 0; c < MAX_CIS; c++) {
    if (gi->cis[c].used) return NVML_ERROR_IN_USE;
  }
  gi->used = 0;
  save_instances();
  return NVML_SUCCESS;
}

/* Compute instance profile index → compute slices (NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE … _6_SLICE). */
static const unsigned ci_profile_slices[] = {1, 2, 3, 4, 7, 8, 6};
#define CI_PROFILE_COUNT (sizeof ci_profile_slices / sizeof ci_profile_slices[0])

EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gi, unsigned int profile,
                                                                  unsigned int engProfile,
                                                                  nvmlComputeInstanceProfileInfo_v2_t *info) {
  nvmlReturn_t rc = enter_gi(gi, "nvmlGpuInstanceGetComputeInstanceProfileInfoV");
  if (rc != NVML_SUCCESS) return rc;
  if (info == NULL || profile >= CI_PROFILE_COUNT || engProfile != 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (info->version != CI_PROFILE_INFO_V2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  unsigned slices = ci_profile_slices[profile];
  if (slices > gi->slices) return NVML_ERROR_NOT_SUPPORTED;
  struct fake_profile p;
  profile_by_id(gi->gpu, gi->profile_id, &p);
  memset(info, 0, sizeof *info);
  info->version = CI_PROFILE_INFO_V2;
  info->id = profile;
  info->sliceCount = slices;
  info->instanceCount = gi->slices / slices;
  info->multiprocessorCount = gi->slices == 0 ? 0 : p.sm * slices / gi->slices;
  info->sharedCopyEngineCount = p.ce;
  info->sharedDecoderCount = p.dec;
  info->sharedEncoderCount = p.enc;
  info->sharedJpegCount = p.jpeg;
  info->sharedOfaCount = p.ofa;
  snprintf(info->name, sizeof info->name, "MIG %uc.%s", slices, p.name == NULL ? "" : p.name);
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gi, unsigned int profileId,
                                                         nvmlComputeInstance_t *ci) {
  nvmlReturn_t rc = enter_gi(gi, "nvmlGpuInstanceCreateComputeInstance");
  if (rc != NVML_SUCCESS) return rc;
  if (ci == NULL || profileId >= CI_PROFILE_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned need = ci_profile_slices[profileId], used = 0;
  if (need > gi->slices) return NVML_ERROR_NOT_SUPPORTED;
  for (unsigned c = 0; c < MAX_CIS; c++) used += gi->cis[c].used ? gi->cis[c].slices : 0;
  if (used + need > gi->slices) return NVML_ERROR_INSUFFICIENT_RESOURCES;
  for (unsigned c = 0; c < MAX_CIS; c++) {
    if (!gi->cis[c].used) {
      gi->cis[c] = (struct fake_ci){1, profileId, need};
      *ci = &gi->cis[c];
      save_instances();
      maybe_die("nvmlGpuInstanceCreateComputeInstance");
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_INSUFFICIENT_RESOURCES;
}

EXPORT nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t ci) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    for (unsigned i = 0; i < MAX_GIS; i++) {
      struct fake_gi *gi = &instances[g][i];
      for (unsigned c = 0; c < MAX_CIS; c++) {
        if (ci != &gi->cis[c]) continue;
        if (!gi->used || !ci->used) return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t rc = enter_gi(gi, "nvmlComputeInstanceDestroy");
        if (rc != NVML_SUCCESS) return rc;
        ci->used = 0;
        save_instances();
        return NVML_SUCCESS;
      }
    }
  }
  return NVML_ERROR_INVALID_ARGUMENT;
}

/* nvmlGpuInstanceInfo_t and nvmlComputeInstanceInfo_t (nvml.h): the handles, the instance id, the profile id
 * and the placement. The compute instance's MIG device handle is left NULL here: the fake has no handles for
 * instances created at run time (callers treat a NULL device as "no MIG UUID"). */
typedef struct {
  nvmlDevice_t device;
  unsigned int id;
  unsigned int profileId;
  nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;

typedef struct {
  unsigned int start;
  unsigned int size;
} nvmlComputeInstancePlacement_t;

typedef struct {
  nvmlDevice_t device;
  nvmlGpuInstance_t gpuInstance;
  unsigned int id;
  unsigned int profileId;
  nvmlComputeInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;

_Static_assert(sizeof(nvmlGpuInstanceInfo_t) == 24, "nvmlGpuInstanceInfo_t layout");
_Static_assert(sizeof(nvmlComputeInstanceInfo_t) == 32, "nvmlComputeInstanceInfo_t layout");

/* NVML_ERROR_NOT_FOUND when no GPU instance has this id. */
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *gpuInstance) {
  nvmlReturn_t rc = enter_gpu_mig(d, "nvmlDeviceGetGpuInstanceById");
  if (rc != NVML_SUCCESS) return rc;
  if (!mig_enabled(d->gpu)) return NVML_ERROR_NOT_SUPPORTED;
  if (gpuInstance == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  for (unsigned i = 0; i < MAX_GIS; i++) {
    if (instances[d->gpu][i].used && instances[d->gpu][i].id == id) {
      *gpuInstance = &instances[d->gpu][i];
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

/* The GPU instances of one profile id; *count in: the array's size, out: how many were written. */
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t d, unsigned int profileId, nvmlGpuInstance_t *gpuInstances,
                                              unsigned int *count) {
  nvmlReturn_t rc = enter_gpu_mig(d, "nvmlDeviceGetGpuInstances");
  if (rc != NVML_SUCCESS) return rc;
  if (!mig_enabled(d->gpu)) return NVML_ERROR_NOT_SUPPORTED;
  struct fake_profile p;
  if (gpuInstances == NULL || count == NULL || !profile_by_id(d->gpu, profileId, &p)) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned n = 0;
  for (unsigned i = 0; i < MAX_GIS; i++) {
    if (!instances[d->gpu][i].used || instances[d->gpu][i].profile_id != profileId) continue;
    if (n == *count) return NVML_ERROR_INSUFFICIENT_SIZE;
    gpuInstances[n++] = &instances[d->gpu][i];
  }
  *count = n;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t *info) {
  nvmlReturn_t rc = enter_gi(gi, "nvmlGpuInstanceGetInfo");
  if (rc != NVML_SUCCESS) return rc;
  if (info == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *info = (nvmlGpuInstanceInfo_t){&gpu_handles[gi->gpu], gi->id, gi->profile_id, {gi->start, gi->size}};
  return NVML_SUCCESS;
}

/* Compute instance ids are the slot numbers, from 0 as the driver's are. NOT_FOUND when there is none. */
EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gi, unsigned int id,
                                                          nvmlComputeInstance_t *ci) {
  nvmlReturn_t rc = enter_gi(gi, "nvmlGpuInstanceGetComputeInstanceById");
  if (rc != NVML_SUCCESS) return rc;
  if (ci == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (id >= MAX_CIS || !gi->cis[id].used) return NVML_ERROR_NOT_FOUND;
  *ci = &gi->cis[id];
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t ci, nvmlComputeInstanceInfo_t *info) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  for (unsigned g = 0; g < MAX_GPUS; g++) {
    for (unsigned i = 0; i < MAX_GIS; i++) {
      struct fake_gi *gi = &instances[g][i];
      for (unsigned c = 0; c < MAX_CIS; c++) {
        if (ci != &gi->cis[c]) continue;
        if (!gi->used || !ci->used) return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t rc = enter_gi(gi, "nvmlComputeInstanceGetInfo_v2");
        if (rc != NVML_SUCCESS) return rc;
        if (info == NULL) return NVML_ERROR_INVALID_ARGUMENT;
        unsigned start = 0;
        for (unsigned k = 0; k < c; k++) start += gi->cis[k].used ? gi->cis[k].slices : 0;
        *info = (nvmlComputeInstanceInfo_t){NULL, gi, c, ci->profile, {start, ci->slices}};
        return NVML_SUCCESS;
      }
    }
  }
  return NVML_ERROR_INVALID_ARGUMENT;
}

/* ---- Events (nvmlEventSetCreate, nvmlDeviceRegisterEvents, nvmlEventSetWait_v2, nvmlEventSetFree) ----
 *
 * FAKE_NVML_EVENTS names a file the test appends lines to; nvmlEventSetWait_v2 consumes complete lines
 * in order, once (the offset is reset by the init that reads the configuration):
 *   "<gpu> xid <N>"  an nvmlEventTypeXidCriticalError event on GPU <gpu> with eventData N, delivered
 *                    when the GPU is registered for that type in the waited set (else dropped);
 *   "<gpu> lost"     GPU <gpu> answers NVML_ERROR_GPU_IS_LOST from now on (as device.<gpu>.lost=1), and
 *                    the wait returns NVML_ERROR_GPU_IS_LOST once, as the real library does;
 *   "<gpu> back"     GPU <gpu> answers normally again (a GPU that was reset).
 * A malformed line is skipped with a message on stderr. Without events the wait polls the file until
 * its timeout and returns NVML_ERROR_TIMEOUT. */

#define NVML_EVENT_TYPE_XID_CRITICAL 0x0000000000000008ULL
#define MAX_EVENT_SETS 8

typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t layout");

struct fake_event_set {
  int used;
  unsigned long long registered[MAX_GPUS];
};

typedef struct fake_event_set *nvmlEventSet_t;

static struct fake_event_set event_sets[MAX_EVENT_SETS];
static long events_offset;

static void reset_events(void) {
  events_offset = 0;
  for (int i = 0; i < MAX_EVENT_SETS; i++) event_sets[i].used = 0;
}

static int valid_set(nvmlEventSet_t set) {
  for (int i = 0; i < MAX_EVENT_SETS; i++) {
    if (set == &event_sets[i]) return set->used;
  }
  return 0;
}

/* The next complete line of the event file, or 0 when there is none yet. */
static int next_event_line(char *line, size_t size) {
  const char *path = getenv("FAKE_NVML_EVENTS");
  if (path == NULL || *path == '\0') return 0;
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  int got = 0;
  if (fseek(f, events_offset, SEEK_SET) == 0 && fgets(line, (int)size, f) != NULL) {
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\n') {
      events_offset = ftell(f);
      got = 1;
    }
  }
  fclose(f);
  return got;
}

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
  nvmlReturn_t rc = enter_system("nvmlEventSetCreate");
  if (rc != NVML_SUCCESS) return rc;
  if (set == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < MAX_EVENT_SETS; i++) {
    if (!event_sets[i].used) {
      memset(&event_sets[i], 0, sizeof event_sets[i]);
      event_sets[i].used = 1;
      *set = &event_sets[i];
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_UNKNOWN;
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  nvmlReturn_t rc = enter_system("nvmlEventSetFree");
  if (rc != NVML_SUCCESS) return rc;
  if (!valid_set(set)) return NVML_ERROR_INVALID_ARGUMENT;
  set->used = 0;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *types) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceGetSupportedEventTypes");
  if (rc != NVML_SUCCESS) return rc;
  if (types == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *types = d->is_mig ? 0 : NVML_EVENT_TYPE_XID_CRITICAL;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
  nvmlReturn_t rc = enter(d, "nvmlDeviceRegisterEvents");
  if (rc != NVML_SUCCESS) return rc;
  if (!valid_set(set)) return NVML_ERROR_INVALID_ARGUMENT;
  if (d->is_mig || (types & ~NVML_EVENT_TYPE_XID_CRITICAL) != 0) return NVML_ERROR_NOT_SUPPORTED;
  set->registered[d->gpu] |= types;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
  nvmlReturn_t rc = enter_system("nvmlEventSetWait_v2");
  if (rc != NVML_SUCCESS) return rc;
  if (!valid_set(set) || data == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct timespec start, now, pause = {0, 5 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  char line[256];
  for (;;) {
    while (next_event_line(line, sizeof line)) {
      unsigned gpu;
      unsigned long long xid;
      char word[16];
      if (sscanf(line, "%u xid %llu", &gpu, &xid) == 2 && gpu < gpu_count()) {
        if (set->registered[gpu] & NVML_EVENT_TYPE_XID_CRITICAL) {
          memset(data, 0, sizeof *data);
          data->device = &gpu_handles[gpu];
          data->eventType = NVML_EVENT_TYPE_XID_CRITICAL;
          data->eventData = xid;
          data->gpuInstanceId = 0xFFFFFFFFu;
          data->computeInstanceId = 0xFFFFFFFFu;
          return NVML_SUCCESS;
        }
      } else if (sscanf(line, "%u %15s", &gpu, word) == 2 && gpu < gpu_count() && strcmp(word, "lost") == 0) {
        runtime_lost[gpu] = 1;
        return NVML_ERROR_GPU_IS_LOST;
      } else if (sscanf(line, "%u %15s", &gpu, word) == 2 && gpu < gpu_count() && strcmp(word, "back") == 0) {
        runtime_lost[gpu] = 2;
      } else {
        fprintf(stderr, "fake-nvml: FAKE_NVML_EVENTS: skipping malformed line: %s", line);
      }
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed_ms >= (long)timeoutms) return NVML_ERROR_TIMEOUT;
    nanosleep(&pause, NULL);
  }
}
